// Precedence of every field: admin > medusa-config > environment > default.
import { z } from "zod"
import {
  PROVIDER_OPTION_GROUPS,
  PayinPluginOptions,
  PayinProviderOptions,
  ProviderOptionGroup,
  amountPolicySchema,
  pluginOptionsSchema,
  providerOptionsSchema,
} from "./options"

export type OptionSource = "admin" | "config" | "env" | "default"

/** Config-only: the admin must not lift its own guard (`allowPrivateBaseUrl`). */
export const CONFIG_ONLY_FIELDS = ["id", "allowPrivateBaseUrl"] as const
type ConfigOnlyField = (typeof CONFIG_ONLY_FIELDS)[number]

export const PROVIDER_SETTING_FIELDS = Object.keys(providerOptionsSchema.shape).filter(
  (f) => !(CONFIG_ONLY_FIELDS as readonly string[]).includes(f) && f !== "apiKey"
) as ProviderSettingField[]
export type ProviderSettingField = Exclude<keyof typeof providerOptionsSchema.shape, ConfigOnlyField | "apiKey">
export const GROUP_FIELDS = Object.fromEntries(
  Object.entries(PROVIDER_OPTION_GROUPS).map(([group, schema]) => [group, Object.keys(schema.shape)])
) as { [G in ProviderOptionGroup]: string[] }
const isGroup = (field: string): field is ProviderOptionGroup => field in PROVIDER_OPTION_GROUPS
export const PLUGIN_SETTING_FIELDS = Object.keys(pluginOptionsSchema.shape) as (keyof typeof pluginOptionsSchema.shape)[]

export const SETTINGS_TTL_MS = 5_000

export const pluginScope = "plugin"
export const providerScope = (id: string) => `provider:${id}`

export type ConfigSources = Record<string, Exclude<OptionSource, "admin">>

export type ProviderOverrides = Partial<Omit<PayinProviderOptions, ConfigOnlyField | "apiKey" | ProviderOptionGroup>> & {
  [G in ProviderOptionGroup]?: Partial<PayinProviderOptions[G]>
}

/** Stored beside the overrides: the origin the admin's API key was entered for; the key is sent only there (absent for older keys). */
export const API_KEY_ORIGIN = "$apiKeyOrigin"

export function splitProviderValues(values: Record<string, unknown> | null | undefined): {
  overrides: ProviderOverrides
  keyOrigin: string | null | undefined
} {
  const overrides: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(values ?? {})) {
    // anything that is not an admin-settable field (such as a config-only option) is ignored
    if ((PROVIDER_SETTING_FIELDS as string[]).includes(key)) overrides[key] = value
  }
  const stored = values?.[API_KEY_ORIGIN]
  return {
    overrides: overrides as ProviderOverrides,
    keyOrigin: values && API_KEY_ORIGIN in values ? (typeof stored === "string" ? stored : null) : undefined,
  }
}

export function originOf(baseUrl: string | null | undefined): string | null {
  if (!baseUrl) return null
  try {
    return new URL(baseUrl).origin
  } catch {
    return null
  }
}
export type PluginOverrides = Partial<PayinPluginOptions>

const emptyToNull = (value: unknown) => (typeof value === "string" && value.trim() === "" ? null : value)
const nullableText = z.preprocess(emptyToNull, z.string({ error: "must be text" }).nullable()).optional()

/** null or "" = back to medusa-config / env / default; the option schema checks values when the patch is applied, so the error names the field. */
const patchValue = z.preprocess(emptyToNull, z.unknown()).optional()
const patchOf = <K extends string>(fields: readonly K[]) =>
  Object.fromEntries(fields.map((f) => [f, patchValue])) as Record<K, typeof patchValue>

const revision = z.number({ error: "revision must be a number" }).int().min(0).optional()

export const providerSettingsPatchSchema = z
  .object({
    ...patchOf(PROVIDER_SETTING_FIELDS.filter((f) => !isGroup(f) && f !== "amountPolicy")),
    apiKey: z.preprocess(emptyToNull, z.string({ error: "apiKey must be text" }).trim().nullable()).optional(),
    paymentPage: z.strictObject(patchOf(GROUP_FIELDS.paymentPage)).nullable().optional(),
    notifications: z.strictObject(patchOf(GROUP_FIELDS.notifications)).nullable().optional(),
    amountPolicy: z.strictObject(patchOf(Object.keys(amountPolicySchema.shape))).nullable().optional(),
    revision,
  })
  .strict()
export type ProviderSettingsPatch = {
  [K in ProviderSettingField]?: unknown
} & {
  apiKey?: string | null
  revision?: number
  paymentPage?: Record<string, unknown> | null
  notifications?: Record<string, unknown> | null
  amountPolicy?: Record<string, unknown> | null
}

export const pluginSettingsPatchSchema = z.object({ ...patchOf(PLUGIN_SETTING_FIELDS), revision }).strict()
export type PluginSettingsPatch = { [K in (typeof PLUGIN_SETTING_FIELDS)[number]]?: unknown } & { revision?: number }

/** POST /admin/payin/settings/:id/test-connection: unsaved form values win over saved ones. */
export const testConnectionSchema = z
  .object({
    apiKey: z.preprocess(emptyToNull, z.string().trim().nullable()).optional(),
    baseUrl: nullableText,
    timeoutMs: z.number().nullable().optional(),
    signRequests: z.boolean().nullable().optional(),
  })
  .strict()

export type FieldError = { path: string; message: string; code?: string }

export class SettingsValidationError extends Error {
  constructor(readonly fields: FieldError[]) {
    super(`Invalid settings: ${fields.map((f) => `${f.path}: ${f.message}`).join("; ")}`)
    this.name = "SettingsValidationError"
  }
}

export function zodFields(error: z.ZodError, prefix = ""): FieldError[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join("."),
    message:
      issue.code === "unrecognized_keys" ? `unknown field(s): ${issue.keys.join(", ")}` : issue.message,
  }))
}

export function applyProviderPatch(
  config: PayinProviderOptions,
  current: ProviderOverrides,
  patch: ProviderSettingsPatch
): ProviderOverrides {
  const next: Record<string, unknown> = { ...current }
  for (const field of PROVIDER_SETTING_FIELDS) {
    if (!(field in patch) || patch[field] === undefined) continue
    const value = patch[field]
    if (isGroup(field)) {
      // a group's fields one by one; null for the whole group (or a field) = back to medusa-config
      if (value === null) {
        delete next[field]
        continue
      }
      const group: Record<string, unknown> = { ...((current[field] as Record<string, unknown>) ?? {}) }
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === undefined) continue
        if (v === null || v === "") delete group[key]
        else group[key] = v
      }
      if (Object.keys(group).length) next[field] = group
      else delete next[field]
      continue
    }
    if (field === "amountPolicy" && value !== null) {
      next.amountPolicy = { ...config.amountPolicy, ...(current.amountPolicy ?? {}), ...(value as object) }
      continue
    }
    if (value === null || value === "") delete next[field]
    else next[field] = value
  }
  // validate what the merged options would be, then keep only the admin's fields, normalised
  const merged = mergeProviderOptions(config, next as ProviderOverrides, config.apiKey)
  const result = providerOptionsSchema.safeParse(merged)
  if (!result.success) {
    throw new SettingsValidationError(zodFields(result.error))
  }
  const normalised: Record<string, unknown> = {}
  for (const key of Object.keys(next)) {
    const out = (result.data as Record<string, unknown>)[key]
    if (isGroup(key)) {
      const group: Record<string, unknown> = {}
      for (const groupKey of Object.keys(next[key] as object)) {
        group[groupKey] = (out as Record<string, unknown>)[groupKey]
      }
      normalised[key] = group
    } else {
      normalised[key] = out
    }
  }
  return normalised as ProviderOverrides
}

export function applyPluginPatch(config: PayinPluginOptions, current: PluginOverrides, patch: PluginSettingsPatch): PluginOverrides {
  const next: Record<string, unknown> = { ...current }
  for (const field of PLUGIN_SETTING_FIELDS) {
    if (patch[field] === undefined) continue
    if (patch[field] === null || patch[field] === "") delete next[field]
    else next[field] = patch[field]
  }
  const result = pluginOptionsSchema.safeParse({ ...config, ...next })
  if (!result.success) {
    throw new SettingsValidationError(zodFields(result.error))
  }
  return Object.fromEntries(Object.keys(next).map((k) => [k, (result.data as Record<string, unknown>)[k]]))
}

/** Not re-validated: both sides were. */
export function mergeProviderOptions(
  config: PayinProviderOptions,
  overrides: ProviderOverrides,
  apiKey: string | undefined
): PayinProviderOptions {
  return {
    ...config,
    ...(overrides as Partial<PayinProviderOptions>),
    paymentPage: { ...config.paymentPage, ...(overrides.paymentPage ?? {}) },
    notifications: { ...config.notifications, ...(overrides.notifications ?? {}) },
    id: config.id,
    allowPrivateBaseUrl: config.allowPrivateBaseUrl,
    apiKey,
  }
}

export function providerSources(
  overrides: ProviderOverrides,
  configSources: ConfigSources | undefined,
  apiKeySource: OptionSource | null
): Record<string, OptionSource | null> {
  const sources: Record<string, OptionSource | null> = { apiKey: apiKeySource }
  const fromConfig = (key: string): Exclude<OptionSource, "admin"> => configSources?.[key] ?? "config"
  for (const field of PROVIDER_SETTING_FIELDS) {
    if (isGroup(field)) continue
    sources[field] = field in overrides ? "admin" : fromConfig(field)
  }
  for (const [group, fields] of Object.entries(GROUP_FIELDS) as [ProviderOptionGroup, string[]][]) {
    const set = (overrides[group] ?? {}) as Record<string, unknown>
    let anyAdmin = false
    for (const key of fields) {
      const path = `${group}.${key}`
      if (key in set) anyAdmin = true
      sources[path] = key in set ? "admin" : fromConfig(path)
    }
    sources[group] = anyAdmin ? "admin" : fromConfig(group)
  }
  return sources
}

export function pluginSources(overrides: PluginOverrides, configSources: ConfigSources | undefined): Record<string, OptionSource> {
  return Object.fromEntries(
    PLUGIN_SETTING_FIELDS.map((f) => [f, f in overrides ? "admin" : (configSources?.[f] ?? "config")])
  )
}
