import { z } from "zod"
import { PAYIN_METHODS, HttpUrlSchema, SupportLinkSchema } from "../../../client/schemas"
import { INSTANCE_ID_PATTERN } from "../../../provider-id"
import { orderStatusUrlTemplateError } from "./order-status-url"
import { ALERTABLE_SIGNALS } from "../signal-ids"

export { PAYIN_METHODS }
export type PayinMethod = (typeof PAYIN_METHODS)[number]

const httpUrl = z.string({ error: "must be a string URL" }).trim().pipe(HttpUrlSchema)

/**
 * Every whole-number setting: "<field> must be a number [of <unit>]", "… a whole number [of <unit>]",
 * "… at least <min>" (or "… <least>"), "… at most <max> [(<most>)]"; the messages are what the
 * admin and medusa-config's errors show.
 */
function wholeNumber(field: string, min: number, max: number, fallback: number, words: { unit?: string; least?: string; most?: string } = {}) {
  const unit = words.unit ? ` of ${words.unit}` : ""
  return z
    .number({ error: `${field} must be a number${unit}` })
    .int({ message: `${field} must be a whole number${unit}` })
    .min(min, { message: `${field} must be ${words.least ?? `at least ${min}`}` })
    .max(max, { message: `${field} must be at most ${max}${words.most ? ` (${words.most})` : ""}` })
    .default(fallback)
}

/** Not `*.localhost`: such a name is loopback only if the resolver says so, and a resolver may send it anywhere. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase()
  return host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host)
}

export function isAllowedBaseUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))
  } catch {
    return false
  }
}

/** The service's base URL: the API key is sent there, so https unless it is this machine. */
export const baseUrlSchema = z
  .string({ error: "baseUrl must be a string URL" })
  .trim()
  .refine(isAllowedBaseUrl, {
    message: "baseUrl must be an https URL (plain http is allowed only for localhost and loopback addresses)",
  })

const origin = z
  .string({ error: "each allowed redirect origin must be a string" })
  .trim()
  .refine((value) => isHttpUrl(value) && new URL(value).origin === value.replace(/\/$/, ""), {
    message: 'each allowed redirect origin must be a bare origin such as "https://shop.example.com"',
  })
  .transform((value) => value.replace(/\/$/, ""))

function isHttpUrl(value: string): boolean {
  return HttpUrlSchema.safeParse(value).success
}

/** Payment Page defaults sent as `paymentPageConfig` (spec: omitted fields take the merchant panel's). */
export const paymentPageOptionsSchema = z
  .object({
    successUrl: httpUrl.optional(),
    failureUrl: httpUrl.optional(),
    supportLink: z.string({ error: "must be a string URL" }).trim().pipe(SupportLinkSchema).optional(),
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

export const amountPolicySchema = z
  .object({
    mode: z.enum(["fixed", "range"], { error: 'amountPolicy.mode must be "fixed" or "range"' }).default("fixed"),
    tolerancePercent: z
      .number({ error: "amountPolicy.tolerancePercent must be a number" })
      .min(0, { message: "amountPolicy.tolerancePercent must be 0 or more" })
      .max(10, { message: "amountPolicy.tolerancePercent must be at most 10" })
      .default(0),
  })
  .strict()

const templateName = (field: string, fallback: string) =>
  z
    .string({ error: `notifications.${field} must be text` })
    .trim()
    .min(1, { message: `notifications.${field} must not be empty` })
    .max(256, { message: `notifications.${field} must be at most 256 characters` })
    .default(fallback)

export const notificationsOptionsSchema = z
  .object({
    enabled: z.boolean({ error: "notifications.enabled must be true or false" }).default(false),
    channel: z
      .string({ error: "notifications.channel must be text" })
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, {
        message: 'notifications.channel must be a channel name such as "email" (letters, digits, "_", ".", ":", "-"; at most 64)',
      })
      .default("email"),
    instructionsTemplate: templateName("instructionsTemplate", "payin.instructions"),
    paidTemplate: templateName("paidTemplate", "payin.paid"),
    expiredTemplate: templateName("expiredTemplate", "payin.expired"),
    orderStatusUrl: z
      .string({ error: "notifications.orderStatusUrl must be text" })
      .trim()
      .superRefine((value, ctx) => {
        const error = orderStatusUrlTemplateError(value)
        if (error) ctx.addIssue({ code: "custom", message: `notifications.orderStatusUrl ${error}` })
      })
      .optional(),
  })
  .strict()

export const PAY_AGAIN_DEFAULT_GRACE_HOURS = 24

export const payAgainOptionsSchema = z
  .object({
    enabled: z.boolean({ error: "payAgain.enabled must be true or false" }).default(false),
    graceHours: wholeNumber("payAgain.graceHours", 1, 720, PAY_AGAIN_DEFAULT_GRACE_HOURS, { unit: "hours", most: "30 days" }),
  })
  .strict()

export const providerOptionsSchema = z
  .object({
    id: z
      .string({ error: "id must be a string" })
      .regex(INSTANCE_ID_PATTERN, {
        message: 'id must be 1-32 lower-case letters, digits or "-", starting with a letter or digit (e.g. "default")',
      })
      .default("default"),
    /** Optional: it can be set from the admin instead. */
    apiKey: z
      .string({ error: "apiKey must be a string" })
      .trim()
      .min(8, { message: "apiKey is too short: paste the key generated in the merchant panel" })
      .optional(),
    baseUrl: baseUrlSchema.optional(),
    /** Config or environment only, never from the admin. */
    allowPrivateBaseUrl: z.boolean({ error: "allowPrivateBaseUrl must be true or false" }).optional(),
    timeoutMs: wholeNumber("timeoutMs", 500, 120_000, 15_000, { unit: "milliseconds" }),
    signRequests: z.boolean({ error: "signRequests must be true or false" }).default(true),
    paymentPage: paymentPageOptionsSchema.default({}),
    allowedRedirectOrigins: z.array(origin, { error: "allowedRedirectOrigins must be a list of origins" }).default([]),
    allowedMethods: z
      .array(z.enum(PAYIN_METHODS, { error: `allowedMethods entries must be one of: ${PAYIN_METHODS.join(", ")}` }))
      .default([]),
    allowedBanks: z.array(z.string().trim().min(1, { message: "allowedBanks entries must not be empty" })).default([]),
    amountPolicy: amountPolicySchema.default({ mode: "fixed", tolerancePercent: 0 }),
    paymentWindowSeconds: wholeNumber("paymentWindowSeconds", 60, 7 * 86_400, 900, { unit: "seconds", most: "7 days" }),
    manualRefunds: z.boolean({ error: "manualRefunds must be true or false" }).default(false),
    cancelUnpaidOrdersOnExpiry: z.boolean({ error: "cancelUnpaidOrdersOnExpiry must be true or false" }).default(true),
    payAgain: payAgainOptionsSchema.default({ enabled: false, graceHours: PAY_AGAIN_DEFAULT_GRACE_HOURS }),
    notifications: notificationsOptionsSchema.default({
      enabled: false,
      channel: "email",
      instructionsTemplate: "payin.instructions",
      paidTemplate: "payin.paid",
      expiredTemplate: "payin.expired",
    }),
  })
  .strict()

const retentionDays = (field: string, fallback: number) =>
  wholeNumber(field, 0, 3650, fallback, { unit: "days", least: "0 (keep forever) or more", most: "ten years" })

/** The reconciliation job's tick (seconds): every accepted reconcileIntervalSeconds is kept to within one tick. */
export const RECONCILE_TICK_SECONDS = 5

export const pluginOptionsSchema = z
  .object({
    reconcileIntervalSeconds: wholeNumber("reconcileIntervalSeconds", 10, 86_400, 300, { most: "one day" }),
    // 0: a pay-in may be looked up as soon as it exists
    reconcileAfterSeconds: wholeNumber("reconcileAfterSeconds", 0, 86_400, 120, { least: "0 or more" }),
    reconcileConcurrency: wholeNumber("reconcileConcurrency", 1, 64, 8),
    effectRetryLimit: wholeNumber("effectRetryLimit", 1, 100, 5),
    lockTtlSeconds: wholeNumber("lockTtlSeconds", 5, 600, 30),
    webhookRetentionDays: retentionDays("webhookRetentionDays", 30),
    webhookCounterRetentionDays: retentionDays("webhookCounterRetentionDays", 90),
    historyRetentionDays: retentionDays("historyRetentionDays", 0),
    pruneBatchSize: wholeNumber("pruneBatchSize", 10, 10_000, 1_000),
    healthCheckIntervalSeconds: wholeNumber("healthCheckIntervalSeconds", 5, 3600, 60),
    alertsEnabled: z.boolean({ error: "alertsEnabled must be true or false" }).default(true),
    alertSignals: z
      .array(z.enum(ALERTABLE_SIGNALS, { error: `alertSignals entries must be one of: ${ALERTABLE_SIGNALS.join(", ")}` }), {
        error: "alertSignals must be a list of signal names",
      })
      .transform((list) => [...new Set(list)])
      .default([...ALERTABLE_SIGNALS]),
    alertEmailRecipients: z
      .array(z.string().trim().pipe(z.email({ error: "alertEmailRecipients entries must be e-mail addresses" })), {
        error: "alertEmailRecipients must be a list of e-mail addresses",
      })
      .max(20, { message: "alertEmailRecipients may hold at most 20 addresses" })
      .default([]),
    alertEmailChannel: z
      .string({ error: "alertEmailChannel must be text" })
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, {
        message: 'alertEmailChannel must be a channel name such as "email" (letters, digits, "_", ".", ":", "-"; at most 64)',
      })
      .default("email"),
    alertMinIntervalMinutes: wholeNumber("alertMinIntervalMinutes", 0, 1440, 60),
    healthMissedWebhooks: wholeNumber("healthMissedWebhooks", 1, 1000, 2),
    healthRejectedWebhooks: wholeNumber("healthRejectedWebhooks", 1, 10_000, 5),
    healthServiceErrorPercent: wholeNumber("healthServiceErrorPercent", 1, 100, 25),
    healthRequisitesUnavailablePercent: wholeNumber("healthRequisitesUnavailablePercent", 1, 100, 50),
    healthUncapturedMinutes: wholeNumber("healthUncapturedMinutes", 1, 1440, 15),
    webhookBacklogSeconds: wholeNumber("webhookBacklogSeconds", 10, 86_400, 120),
    apiKeyMaxAgeDays: wholeNumber("apiKeyMaxAgeDays", 0, 3650, 365),
  })
  .strict()

export type PayinProviderOptionsInput = z.input<typeof providerOptionsSchema>
export type PayinProviderOptions = z.output<typeof providerOptionsSchema>
export type PayinPluginOptionsInput = z.input<typeof pluginOptionsSchema>
export type PayinPluginOptions = z.output<typeof pluginOptionsSchema>

/** Groups whose fields each have their own source and reset, as `<group>.<field>`. */
export const PROVIDER_OPTION_GROUPS = {
  paymentPage: paymentPageOptionsSchema,
  notifications: notificationsOptionsSchema,
} as const
export type ProviderOptionGroup = keyof typeof PROVIDER_OPTION_GROUPS
