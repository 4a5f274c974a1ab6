import { z } from "zod"
import { payinProviderId } from "../../../provider-id"
import {
  PROVIDER_OPTION_GROUPS,
  type PayinPluginOptions,
  type PayinPluginOptionsInput,
  type PayinProviderOptions,
  type PayinProviderOptionsInput,
  pluginOptionsSchema,
  providerOptionsSchema,
} from "./options"

/** Thrown for invalid options; the message names every bad field and never echoes a value. */
export class PayinConfigError extends Error {
  constructor(
    where: string,
    readonly issues: { path: string; message: string }[]
  ) {
    super(
      `medusa-plugin-payin: invalid ${where}:\n` + issues.map((i) => `  - ${i.path || "(root)"}: ${i.message}`).join("\n")
    )
    this.name = "PayinConfigError"
  }
}

function parseWith<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const result = schema.safeParse(input ?? {})
  if (!result.success) {
    throw new PayinConfigError(
      where,
      result.error.issues.map((issue) => ({
        path: issue.path.map(String).join("."),
        message:
          issue.code === "unrecognized_keys"
            ? `unknown option(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`
            : issue.message,
      }))
    )
  }
  return result.data
}

const ENV_NAMES = { apiKey: "API_KEY", baseUrl: "BASE_URL", allowPrivateBaseUrl: "ALLOW_PRIVATE_BASE_URL" } as const
type EnvOption = keyof typeof ENV_NAMES
const isEnvOption = (key: string): key is EnvOption => key in ENV_NAMES

/** The environment's value of option `key` for instance `id`: PAYIN_<ID>_<NAME>, else PAYIN_<NAME> (empty is unset). */
function envValue(env: Record<string, string | undefined>, id: string, key: EnvOption): string | undefined {
  const envId = id.toUpperCase().replace(/-/g, "_")
  return env[`PAYIN_${envId}_${ENV_NAMES[key]}`] || env[`PAYIN_${ENV_NAMES[key]}`] || undefined
}

const instanceIdOfInput = (raw: Record<string, unknown>) => (typeof raw.id === "string" ? raw.id : "default")

export function parseProviderOptions(
  input: PayinProviderOptionsInput | undefined,
  env: Record<string, string | undefined> = process.env
): PayinProviderOptions {
  const raw: Record<string, unknown> = { ...(input ?? {}) }
  const id = instanceIdOfInput(raw)
  raw.apiKey ??= envValue(env, id, "apiKey")
  raw.baseUrl ??= envValue(env, id, "baseUrl")
  raw.allowPrivateBaseUrl ??= envFlag(envValue(env, id, "allowPrivateBaseUrl"))
  return parseWith(providerOptionsSchema, raw, `options of payment provider "${payinProviderId(id)}"`)
}

/** "true"/"1" and "false"/"0" as booleans; anything else as given (the schema names the option). */
function envFlag(value: string | undefined): unknown {
  const text = value?.trim().toLowerCase()
  if (!text) return undefined
  if (text === "true" || text === "1") return true
  if (text === "false" || text === "0") return false
  return value
}

/** Production unless NODE_ENV is "development" or "test": `medusa start` runs as production when NODE_ENV is unset. */
export function runsInProduction(env: Record<string, string | undefined> = process.env): boolean {
  return env.NODE_ENV !== "development" && env.NODE_ENV !== "test"
}

/** Unset: only outside production. */
export function allowsPrivateBaseUrl(
  options: Pick<PayinProviderOptions, "allowPrivateBaseUrl">,
  env: Record<string, string | undefined> = process.env
): boolean {
  return options.allowPrivateBaseUrl ?? !runsInProduction(env)
}

export function parsePluginOptions(input: PayinPluginOptionsInput | undefined): PayinPluginOptions {
  return parseWith(pluginOptionsSchema, input, "plugin options")
}

export type ConfigSource = "config" | "env" | "default"

export function providerConfigSources(
  input: PayinProviderOptionsInput | undefined,
  env: Record<string, string | undefined> = process.env
): Record<string, ConfigSource> {
  const raw = (input ?? {}) as Record<string, unknown>
  const id = instanceIdOfInput(raw)
  const sources: Record<string, ConfigSource> = {}
  for (const key of Object.keys(providerOptionsSchema.shape)) {
    if (key === "id") continue
    if (raw[key] !== undefined) sources[key] = "config"
    else if (isEnvOption(key) && envValue(env, id, key)) sources[key] = "env"
    else sources[key] = "default"
  }
  for (const [group, schema] of Object.entries(PROVIDER_OPTION_GROUPS)) {
    const given = (raw[group] ?? {}) as Record<string, unknown>
    for (const key of Object.keys(schema.shape)) {
      sources[`${group}.${key}`] = given[key] !== undefined ? "config" : "default"
    }
  }
  return sources
}

export function pluginConfigSources(input: PayinPluginOptionsInput | undefined): Record<string, ConfigSource> {
  const raw = (input ?? {}) as Record<string, unknown>
  return Object.fromEntries(
    Object.keys(pluginOptionsSchema.shape).map((key) => [key, raw[key] !== undefined ? "config" : "default"])
  )
}
