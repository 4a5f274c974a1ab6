/**
 * Settings from the admin layered over medusa-config: pure functions (merge, sources, patches).
 * The precedence of every field is: admin > medusa-config > environment > default.
 */
import { z } from "zod"
import {
  PayinPluginOptions,
  PayinProviderOptions,
  pluginOptionsSchema,
  providerOptionsSchema,
} from "../../../medusa-plugin.config"

export type OptionSource = "admin" | "config" | "env" | "default"

/** Fields of a provider instance the admin can change (the instance id cannot). */
export const PROVIDER_SETTING_FIELDS = [
  "baseUrl",
  "timeoutMs",
  "signRequests",
  "paymentPage",
  "allowedRedirectOrigins",
  "allowedMethods",
  "allowedBanks",
  "amountPolicy",
  "paymentWindowSeconds",
  "manualRefunds",
  "cancelUnpaidOrdersOnExpiry",
] as const
export type ProviderSettingField = (typeof PROVIDER_SETTING_FIELDS)[number]
export const PAGE_FIELDS = ["successUrl", "failureUrl", "supportLink", "locale"] as const

export const PLUGIN_SETTING_FIELDS = ["reconcileIntervalSeconds", "reconcileAfterSeconds", "reconcileConcurrency"] as const

/** How long an instance trusts its copy of the settings before it reads them again. */
export const SETTINGS_TTL_MS = 5_000

export const pluginScope = "plugin"
export const providerScope = (id: string) => `provider:${id}`

/** Where each field of medusa-config came from: computed by withPayin() from the raw input. */
export type ConfigSources = Record<string, Exclude<OptionSource, "admin">>

/** What is stored for a scope: only the fields set from the admin. */
export type ProviderOverrides = Partial<Omit<PayinProviderOptions, "id" | "apiKey" | "paymentPage">> & {
  paymentPage?: Partial<PayinProviderOptions["paymentPage"]>
}
export type PluginOverrides = Partial<PayinPluginOptions>

// ---------------------------------------------------------------------------------------------
// Patches (the admin API's request bodies)
// ---------------------------------------------------------------------------------------------

const emptyToNull = (value: unknown) => (typeof value === "string" && value.trim() === "" ? null : value)
const nullableText = z.preprocess(emptyToNull, z.string({ error: "must be text" }).nullable()).optional()

/** POST /admin/payin/settings/:id. A field set to null goes back to medusa-config / env / default. */
export const providerSettingsPatchSchema = z
  .object({
    apiKey: z.preprocess(emptyToNull, z.string({ error: "apiKey must be text" }).trim().nullable()).optional(),
    baseUrl: nullableText,
    timeoutMs: z.number({ error: "timeoutMs must be a number" }).nullable().optional(),
    signRequests: z.boolean({ error: "signRequests must be true or false" }).nullable().optional(),
    paymentPage: z
      .object({
        successUrl: nullableText,
        failureUrl: nullableText,
        supportLink: nullableText,
        locale: nullableText,
      })
      .strict()
      .nullable()
      .optional(),
    allowedRedirectOrigins: z.array(z.string({ error: "must be text" })).nullable().optional(),
    allowedMethods: z.array(z.string({ error: "must be text" })).nullable().optional(),
    allowedBanks: z.array(z.string({ error: "must be text" })).nullable().optional(),
    amountPolicy: z
      .object({ mode: z.string().optional(), tolerancePercent: z.number({ error: "must be a number" }).optional() })
      .strict()
      .nullable()
      .optional(),
    paymentWindowSeconds: z.number({ error: "paymentWindowSeconds must be a number" }).nullable().optional(),
    manualRefunds: z.boolean({ error: "manualRefunds must be true or false" }).nullable().optional(),
    cancelUnpaidOrdersOnExpiry: z
      .boolean({ error: "cancelUnpaidOrdersOnExpiry must be true or false" })
      .nullable()
      .optional(),
  })
  .strict()
export type ProviderSettingsPatch = z.infer<typeof providerSettingsPatchSchema>

/** POST /admin/payin/settings (plugin-wide). */
export const pluginSettingsPatchSchema = z
  .object({
    reconcileIntervalSeconds: z.number({ error: "reconcileIntervalSeconds must be a number" }).nullable().optional(),
    reconcileAfterSeconds: z.number({ error: "reconcileAfterSeconds must be a number" }).nullable().optional(),
    reconcileConcurrency: z.number({ error: "reconcileConcurrency must be a number" }).nullable().optional(),
  })
  .strict()
export type PluginSettingsPatch = z.infer<typeof pluginSettingsPatchSchema>

/** POST /admin/payin/settings/:id/test-connection: unsaved form values win over saved ones. */
export const testConnectionSchema = z
  .object({
    apiKey: z.preprocess(emptyToNull, z.string().trim().nullable()).optional(),
    baseUrl: nullableText,
    timeoutMs: z.number().nullable().optional(),
    signRequests: z.boolean().nullable().optional(),
  })
  .strict()

export type FieldError = { path: string; message: string }

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

/**
 * Applies a patch to the stored overrides and validates the result against the option schema
 * (so the error names the field). Returns the new overrides, normalised as the schema outputs them.
 */
export function applyProviderPatch(
  config: PayinProviderOptions,
  current: ProviderOverrides,
  patch: ProviderSettingsPatch
): ProviderOverrides {
  const next: Record<string, unknown> = { ...current }
  for (const field of PROVIDER_SETTING_FIELDS) {
    if (!(field in patch) || patch[field] === undefined) continue
    const value = patch[field]
    if (field === "paymentPage") {
      if (value === null) {
        delete next.paymentPage
        continue
      }
      const page: Record<string, unknown> = { ...((current.paymentPage as Record<string, unknown>) ?? {}) }
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === undefined) continue
        if (v === null || v === "") delete page[key]
        else page[key] = v
      }
      if (Object.keys(page).length) next.paymentPage = page
      else delete next.paymentPage
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
    if (key === "paymentPage") {
      const page: Record<string, unknown> = {}
      for (const pageKey of Object.keys(next.paymentPage as object)) {
        page[pageKey] = (out as Record<string, unknown>)[pageKey]
      }
      normalised.paymentPage = page
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
    if (patch[field] === null) delete next[field]
    else next[field] = patch[field]
  }
  const result = pluginOptionsSchema.safeParse({ ...config, ...next })
  if (!result.success) {
    throw new SettingsValidationError(zodFields(result.error))
  }
  return Object.fromEntries(Object.keys(next).map((k) => [k, (result.data as Record<string, unknown>)[k]]))
}

/** medusa-config's options with the admin's overrides and key on top (not re-validated: both sides were). */
export function mergeProviderOptions(
  config: PayinProviderOptions,
  overrides: ProviderOverrides,
  apiKey: string | undefined
): PayinProviderOptions {
  return {
    ...config,
    ...(overrides as Partial<PayinProviderOptions>),
    paymentPage: { ...config.paymentPage, ...(overrides.paymentPage ?? {}) },
    apiKey,
  }
}

/** The source of every field, and of each Payment Page field as `paymentPage.<field>`. */
export function providerSources(
  overrides: ProviderOverrides,
  configSources: ConfigSources | undefined,
  apiKeySource: OptionSource | null
): Record<string, OptionSource | null> {
  const sources: Record<string, OptionSource | null> = { apiKey: apiKeySource }
  const fromConfig = (key: string): Exclude<OptionSource, "admin"> => configSources?.[key] ?? "config"
  for (const field of PROVIDER_SETTING_FIELDS) {
    if (field === "paymentPage") continue
    sources[field] = field in overrides ? "admin" : fromConfig(field)
  }
  const page = overrides.paymentPage ?? {}
  let anyAdmin = false
  for (const key of PAGE_FIELDS) {
    const path = `paymentPage.${key}`
    if (key in page) anyAdmin = true
    sources[path] = key in page ? "admin" : fromConfig(path)
  }
  sources.paymentPage = anyAdmin ? "admin" : fromConfig("paymentPage")
  return sources
}

export function pluginSources(overrides: PluginOverrides, configSources: ConfigSources | undefined): Record<string, OptionSource> {
  return Object.fromEntries(
    PLUGIN_SETTING_FIELDS.map((f) => [f, f in overrides ? "admin" : (configSources?.[f] ?? "config")])
  )
}
