/**
 * medusa-plugin-payin configuration contract (published as `medusa-plugin-payin/config`).
 *
 * One place for: the option schemas of the plugin and of each payment provider instance, their
 * defaults and error messages, and `withPayin()`, the helper a store calls from its
 * medusa-config.ts so that installing is: npm install, one helper call, `medusa db:migrate`.
 *
 * The repository's own test and demo app call the same helper (with `source: "./src"`), so the
 * documented path is the tested path.
 */
import type { InputConfig, InputConfigModules } from "@medusajs/framework/types"
import { z } from "zod"
import { PAYIN_METHODS } from "./src/client/schemas"

/** npm package name; also the default `source` of withPayin(). */
export const PACKAGE_NAME = "medusa-plugin-payin"
/** Container key of the plugin's module (ledger, webhook inbox, settings). */
export const PAYIN_MODULE = "payin"
/** Static identifier of the payment provider: providers register as `pp_payin_<id>`. */
export const PAYIN_PROVIDER_IDENTIFIER = "payin"
/** Medusa's payment module, which hosts the provider instances. */
export const PAYMENT_MODULE_RESOLVE = "@medusajs/medusa/payment"

/** Payment methods the service knows (spec: pay-in request body, `method`). */
export { PAYIN_METHODS }
export type PayinMethod = (typeof PAYIN_METHODS)[number]

const httpUrl = (what: string) =>
  z
    .string({ error: `${what} must be a string URL` })
    .trim()
    .refine(isHttpUrl, { message: `${what} must be an absolute http(s) URL` })

const origin = z
  .string({ error: "each allowed redirect origin must be a string" })
  .trim()
  .refine((value) => isHttpUrl(value) && new URL(value).origin === value.replace(/\/$/, ""), {
    message: 'each allowed redirect origin must be a bare origin such as "https://shop.example.com"',
  })
  .transform((value) => value.replace(/\/$/, ""))

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

/** Payment Page defaults sent as `paymentPageConfig` (spec: omitted fields take the merchant panel's). */
export const paymentPageOptionsSchema = z
  .object({
    successUrl: httpUrl("paymentPage.successUrl").optional(),
    failureUrl: httpUrl("paymentPage.failureUrl").optional(),
    supportLink: httpUrl("paymentPage.supportLink").optional(),
    locale: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2}(?:[-_][A-Za-z]{2})?$/, {
        message: 'paymentPage.locale must be a language code such as "EN" or "RU"',
      })
      .transform((value) => value.toUpperCase())
      .optional(),
  })
  .strict()

/** How the pay-in amount is requested (spec: fiatAmount, or fiatAmountRange when requisites run out). */
export const amountPolicySchema = z
  .object({
    mode: z.enum(["fixed", "range"], { error: 'amountPolicy.mode must be "fixed" or "range"' }).default("fixed"),
    /** For "range": the service may pick an amount up to this percentage above the order total. */
    tolerancePercent: z
      .number({ error: "amountPolicy.tolerancePercent must be a number" })
      .min(0, { message: "amountPolicy.tolerancePercent must be 0 or more" })
      .max(10, { message: "amountPolicy.tolerancePercent must be at most 10" })
      .default(0),
  })
  .strict()

/** Options of one payment provider instance (`pp_payin_<id>`). */
export const providerOptionsSchema = z
  .object({
    /** Instance id: the provider registers as `pp_payin_<id>` and its webhook is `POST /hooks/payin/<id>`. */
    id: z
      .string({ error: "id must be a string" })
      .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, {
        message: 'id must be 1-32 lower-case letters, digits or "-", starting with a letter or digit (e.g. "default")',
      })
      .default("default"),
    /** The merchant's API key. Optional here because it can be set from the admin instead. */
    apiKey: z
      .string({ error: "apiKey must be a string" })
      .trim()
      .min(8, { message: "apiKey is too short: paste the key generated in the merchant panel" })
      .optional(),
    /** The service's base URL (`{base_url}` of the spec). */
    baseUrl: httpUrl("baseUrl").optional(),
    /** Timeout of every call to the service. */
    timeoutMs: z
      .number({ error: "timeoutMs must be a number of milliseconds" })
      .int({ message: "timeoutMs must be a whole number of milliseconds" })
      .min(500, { message: "timeoutMs must be at least 500" })
      .max(120_000, { message: "timeoutMs must be at most 120000" })
      .default(15_000),
    /** Sign request bodies with `x-signature` (HMAC-SHA256 keyed with the API key), as the spec's example does. */
    signRequests: z.boolean({ error: "signRequests must be true or false" }).default(true),
    paymentPage: paymentPageOptionsSchema.default({}),
    /** Origins the storefront may ask the Payment Page to redirect to (no open redirects). */
    allowedRedirectOrigins: z.array(origin, { error: "allowedRedirectOrigins must be a list of origins" }).default([]),
    /** Methods a shopper may choose; empty means any method the service offers. */
    allowedMethods: z
      .array(z.enum(PAYIN_METHODS, { error: `allowedMethods entries must be one of: ${PAYIN_METHODS.join(", ")}` }))
      .default([]),
    /** Banks a shopper may choose (names as the service lists them); empty means any. */
    allowedBanks: z.array(z.string().trim().min(1, { message: "allowedBanks entries must not be empty" })).default([]),
    amountPolicy: amountPolicySchema.default({ mode: "fixed", tolerancePercent: 0 }),
    /** The payment window set in the merchant panel; the storefront shows the shopper this deadline. */
    paymentWindowSeconds: z
      .number({ error: "paymentWindowSeconds must be a number of seconds" })
      .int({ message: "paymentWindowSeconds must be a whole number of seconds" })
      .min(60, { message: "paymentWindowSeconds must be at least 60" })
      .max(7 * 86_400, { message: "paymentWindowSeconds must be at most 604800 (7 days)" })
      .default(900),
    /**
     * The service has no refund operation. When true, a refund in Medusa is recorded as done outside
     * (the merchant pays the shopper back by other means); when false, refunds are refused with an explanation.
     */
    manualRefunds: z.boolean({ error: "manualRefunds must be true or false" }).default(false),
    /** Cancel an order placed before payment when its pay-in expires unpaid. */
    cancelUnpaidOrdersOnExpiry: z.boolean({ error: "cancelUnpaidOrdersOnExpiry must be true or false" }).default(true),
  })
  .strict()

/** Options of the plugin itself (passed to its module). */
export const pluginOptionsSchema = z
  .object({
    /** How often the reconciliation job looks up unfinished pay-ins. */
    reconcileIntervalSeconds: z
      .number({ error: "reconcileIntervalSeconds must be a number" })
      .int({ message: "reconcileIntervalSeconds must be a whole number" })
      .min(30, { message: "reconcileIntervalSeconds must be at least 30" })
      .max(86_400, { message: "reconcileIntervalSeconds must be at most 86400 (one day)" })
      .default(300),
    /** Unfinished pay-ins younger than this are left to their webhooks. */
    reconcileAfterSeconds: z
      .number({ error: "reconcileAfterSeconds must be a number" })
      .int({ message: "reconcileAfterSeconds must be a whole number" })
      .min(0, { message: "reconcileAfterSeconds must be 0 or more" })
      .max(86_400, { message: "reconcileAfterSeconds must be at most 86400" })
      .default(120),
    /** Lookups the reconciliation job runs at once (bounded, so 10,000 pending pay-ins do not flood the service). */
    reconcileConcurrency: z
      .number({ error: "reconcileConcurrency must be a number" })
      .int()
      .min(1, { message: "reconcileConcurrency must be at least 1" })
      .max(64, { message: "reconcileConcurrency must be at most 64" })
      .default(8),
  })
  .strict()

export type PayinProviderOptionsInput = z.input<typeof providerOptionsSchema>
export type PayinProviderOptions = z.output<typeof providerOptionsSchema>
export type PayinPluginOptionsInput = z.input<typeof pluginOptionsSchema>
export type PayinPluginOptions = z.output<typeof pluginOptionsSchema>

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

/**
 * Validates one provider's options, filling defaults. `PAYIN_<ID>_API_KEY` / `PAYIN_API_KEY` and
 * `PAYIN_<ID>_BASE_URL` / `PAYIN_BASE_URL` fill apiKey and baseUrl when they are not given.
 */
export function parseProviderOptions(
  input: PayinProviderOptionsInput | undefined,
  env: Record<string, string | undefined> = process.env
): PayinProviderOptions {
  const raw: Record<string, unknown> = { ...(input ?? {}) }
  const id = typeof raw.id === "string" ? raw.id : "default"
  const envId = id.toUpperCase().replace(/-/g, "_")
  raw.apiKey ??= env[`PAYIN_${envId}_API_KEY`] || env.PAYIN_API_KEY || undefined
  raw.baseUrl ??= env[`PAYIN_${envId}_BASE_URL`] || env.PAYIN_BASE_URL || undefined
  return parseWith(providerOptionsSchema, raw, `options of payment provider "pp_${PAYIN_PROVIDER_IDENTIFIER}_${id}"`)
}

export function parsePluginOptions(input: PayinPluginOptionsInput | undefined): PayinPluginOptions {
  return parseWith(pluginOptionsSchema, input, "plugin options")
}

/** Where a configured value came from (the admin's overrides are layered on top at run time). */
export type ConfigSource = "config" | "env" | "default"

/**
 * The source of each provider option: given in medusa-config, taken from the environment
 * (apiKey, baseUrl), or the default. Payment Page fields are listed as `paymentPage.<field>`.
 */
export function providerConfigSources(
  input: PayinProviderOptionsInput | undefined,
  env: Record<string, string | undefined> = process.env
): Record<string, ConfigSource> {
  const raw = (input ?? {}) as Record<string, unknown>
  const envId = (typeof raw.id === "string" ? raw.id : "default").toUpperCase().replace(/-/g, "_")
  const sources: Record<string, ConfigSource> = {}
  for (const key of Object.keys(providerOptionsSchema.shape)) {
    if (key === "id") continue
    if (raw[key] !== undefined) sources[key] = "config"
    else if ((key === "apiKey" || key === "baseUrl") && (env[`PAYIN_${envId}_${key === "apiKey" ? "API_KEY" : "BASE_URL"}`] || env[key === "apiKey" ? "PAYIN_API_KEY" : "PAYIN_BASE_URL"]))
      sources[key] = "env"
    else sources[key] = "default"
  }
  const page = (raw.paymentPage ?? {}) as Record<string, unknown>
  for (const key of Object.keys(paymentPageOptionsSchema.shape)) {
    sources[`paymentPage.${key}`] = page[key] !== undefined ? "config" : "default"
  }
  return sources
}

export function pluginConfigSources(input: PayinPluginOptionsInput | undefined): Record<string, ConfigSource> {
  const raw = (input ?? {}) as Record<string, unknown>
  return Object.fromEntries(
    Object.keys(pluginOptionsSchema.shape).map((key) => [key, raw[key] !== undefined ? "config" : "default"])
  )
}

/** Medusa's id of a provider instance, e.g. `pp_payin_default`. */
export function payinProviderId(id = "default"): string {
  return `pp_${PAYIN_PROVIDER_IDENTIFIER}_${id}`
}

// ---------------------------------------------------------------------------------------------
// Registration helper
// ---------------------------------------------------------------------------------------------

export type WithPayinOptions = PayinPluginOptionsInput & {
  /** Payment provider instances; default: one instance with id "default". */
  providers?: PayinProviderOptionsInput[]
  /**
   * Where the plugin's code is loaded from: the package name (default, for stores) or a path to
   * its `src` folder relative to the app (this repository's test and demo app use "./src").
   */
  source?: string
}

type ModuleEntry = { resolve?: unknown; key?: string; options?: Record<string, unknown>; dependencies?: string[] } & Record<
  string,
  unknown
>
type PluginEntry = string | { resolve: string; options: Record<string, unknown> }
/** What withPayin() guarantees on the config it returns. */
export type PayinRegistered = {
  plugins: NonNullable<InputConfig["plugins"]>
  modules: InputConfigModules
}

type ConfigInput = { plugins?: PluginEntry[]; modules?: unknown } & Record<string, unknown>

/**
 * Registers the plugin, its module and its payment provider instance(s) in a medusa-config input:
 *
 *     export default defineConfig(withPayin({ projectConfig: {...} }, { providers: [{ id: "default" }] }))
 *
 * It merges into an existing payment module entry (keeping other providers such as Stripe), adds
 * the `payin` module to that entry's `dependencies` (the provider reads the ledger through it),
 * and validates every option now, so a mistake stops the boot with a clear message.
 */
export function withPayin<T extends ConfigInput>(
  config: T,
  options: WithPayinOptions = {}
): T & PayinRegistered {
  const { providers: providersInput, source = PACKAGE_NAME, ...pluginInput } = options
  const pluginOptions = parsePluginOptions(pluginInput)
  const providers = (providersInput?.length ? providersInput : [{}]).map((p) => parseProviderOptions(p))

  const ids = new Set<string>()
  for (const p of providers) {
    if (ids.has(p.id)) {
      throw new PayinConfigError("providers", [{ path: "providers", message: `provider id "${p.id}" is used twice` }])
    }
    ids.add(p.id)
  }

  // The module (webhook route, ledger) needs each instance's options too: its API key verifies
  // that instance's webhooks.
  // Where each value came from, for the admin's settings page.
  const sources = {
    plugin: pluginConfigSources(pluginInput),
    providers: Object.fromEntries(
      (providersInput?.length ? providersInput : [{}]).map((p, i) => [providers[i].id, providerConfigSources(p)])
    ),
  }
  const moduleOptions = { ...pluginOptions, providers, sources }

  const isPath = source.startsWith(".") || source.startsWith("/")
  const base = source.replace(/\/$/, "")
  const providerResolve = `${base}/providers/${PAYIN_PROVIDER_IDENTIFIER}`
  const providerEntries = providers.map((p) => ({ resolve: providerResolve, id: p.id, options: p }))

  const next: ConfigInput = { ...config }

  if (isPath) {
    // The app is the plugin's own source: its modules are not auto-registered, list them.
    next.modules = upsertModule(next.modules, PAYIN_MODULE, (existing) => ({
      ...existing,
      resolve: `${base}/modules/${PAYIN_MODULE}`,
      options: { ...(existing?.options ?? {}), ...moduleOptions },
    }))
  } else {
    const plugins = [...(next.plugins ?? [])].filter(
      (p) => (typeof p === "string" ? p : p.resolve) !== source
    )
    plugins.push({ resolve: source, options: moduleOptions })
    next.plugins = plugins
  }

  next.modules = upsertModule(next.modules, "payment", (existing) => {
    const existingOptions = existing?.options ?? {}
    const existingProviders = Array.isArray(existingOptions.providers)
      ? (existingOptions.providers as { resolve?: unknown; id?: string }[])
      : []
    const kept = existingProviders.filter(
      (p) => !(p.resolve === providerResolve && providers.some((mine) => mine.id === p.id))
    )
    return {
      ...existing,
      resolve: existing?.resolve ?? PAYMENT_MODULE_RESOLVE,
      dependencies: Array.from(new Set([...(existing?.dependencies ?? []), PAYIN_MODULE])),
      options: { ...existingOptions, providers: [...kept, ...providerEntries] },
    }
  })

  return next as unknown as T & PayinRegistered
}

/** Adds or updates one module entry, whether the config lists modules as an array or an object. */
function upsertModule(
  modules: unknown,
  key: string,
  update: (existing: ModuleEntry | undefined) => ModuleEntry
): unknown {
  if (modules && !Array.isArray(modules) && typeof modules === "object") {
    const record = { ...(modules as Record<string, ModuleEntry | boolean>) }
    const current = record[key]
    record[key] = update(typeof current === "object" ? current : undefined)
    return record
  }
  const list = [...((modules as ModuleEntry[] | undefined) ?? [])]
  const index = list.findIndex((m) => moduleKeyOf(m) === key)
  if (index === -1) {
    list.push(update(undefined))
  } else {
    list[index] = update(list[index])
  }
  return list
}

function moduleKeyOf(entry: ModuleEntry): string | undefined {
  if (entry.key) {
    return entry.key
  }
  if (entry.resolve === PAYMENT_MODULE_RESOLVE || entry.resolve === "@medusajs/payment") {
    return "payment"
  }
  if (typeof entry.resolve === "string" && entry.resolve.replace(/\/$/, "").endsWith(`/modules/${PAYIN_MODULE}`)) {
    return PAYIN_MODULE
  }
  return undefined
}
