import type { Attributes } from "@opentelemetry/api"
import { ATTRIBUTES, type AttributeName, METRIC_ATTRIBUTES, type PayinAttributes } from "./names"

const METRIC_NAMES = new Set<string>(METRIC_ATTRIBUTES)

/**
 * The attributes that pass the allow-list: a known name with a value its rule accepts. Anything
 * else is dropped (not replaced: a wrong value is a bug to see as a missing attribute, not data).
 * Typed callers cannot name another attribute; this guards the values and untyped callers.
 */
export function allowedAttributes(input: PayinAttributes | Record<string, unknown>, only: "span" | "metric" = "span"): Attributes {
  const out: Attributes = {}
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue
    if (only === "metric" && !METRIC_NAMES.has(name)) continue
    const rule = Object.prototype.hasOwnProperty.call(ATTRIBUTES, name) ? ATTRIBUTES[name as AttributeName] : undefined
    if (rule?.check(value)) out[name] = value as string | number | boolean
  }
  return out
}
