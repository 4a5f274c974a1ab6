/**
 * The option schemas of the plugin and of each payment provider instance: defaults, limits and
 * error messages. The one owner of the options' shapes: medusa-config (through withPayin,
 * re-exported as `medusa-plugin-payin/config`; parsed in parse.ts), the admin's settings patches
 * and field lists derive from here.
 */
import { z } from "zod"
import { PAYIN_METHODS, HttpUrlSchema, SupportLinkSchema } from "../../../client/schemas"
import { orderStatusUrlTemplateError } from "./order-status-url"

/** Payment methods the service knows (spec: pay-in request body, `method`). */
export { PAYIN_METHODS }
export type PayinMethod = (typeof PAYIN_METHODS)[number]

/** An absolute http(s) URL (the client's schema: what the service accepts), trimmed first. */
const httpUrl = z.string({ error: "must be a string URL" }).trim().pipe(HttpUrlSchema)

/**
 * Hosts an API key may travel to over plain http: this machine only, named by `localhost` or a
 * loopback literal (127.0.0.0/8, [::1]). Not `*.localhost`: such a name is only loopback if the
 * resolver says so, and a resolver may send it anywhere.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase()
  return host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host)
}

/** Whether `value` may be the service's base URL: https, or http to this machine only (the API key travels there). */
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
    /** An http(s), mailto: or tel: link, as the service accepts it. */
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

/** A notification template name (the name in the notification provider's system). */
const templateName = (field: string, fallback: string) =>
  z
    .string({ error: `notifications.${field} must be text` })
    .trim()
    .min(1, { message: `notifications.${field} must not be empty` })
    .max(256, { message: `notifications.${field} must be at most 256 characters` })
    .default(fallback)

/**
 * Shopper notifications through Medusa's Notification Module (src/notifications): off unless
 * `enabled`; sent on `channel` (a notification provider must be registered for it) with one
 * template per kind; `orderStatusUrl` builds the order's status page link.
 */
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
    /** The order's status page: an http(s) URL with {order_id}, {display_id}, {cart_id}, {country_code}. */
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

/** The grace period of "pay again" when switched on without one: a day. */
export const PAY_AGAIN_DEFAULT_GRACE_HOURS = 24

export const payAgainOptionsSchema = z
  .object({
    enabled: z.boolean({ error: "payAgain.enabled must be true or false" }).default(false),
    graceHours: z
      .number({ error: "payAgain.graceHours must be a number of hours" })
      .int({ message: "payAgain.graceHours must be a whole number of hours" })
      .min(1, { message: "payAgain.graceHours must be at least 1" })
      .max(720, { message: "payAgain.graceHours must be at most 720 (30 days)" })
      .default(PAY_AGAIN_DEFAULT_GRACE_HOURS),
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
    baseUrl: baseUrlSchema.optional(),
    /**
     * Lets a base URL typed in the admin (saved, or in "Test connection") point at private,
     * loopback or link-local addresses: for development and sandbox instances only. Set in
     * medusa-config or the environment, never from the admin. Unset: allowed only when NODE_ENV is
     * "development" or "test" (allowsPrivateBaseUrl).
     */
    allowPrivateBaseUrl: z.boolean({ error: "allowPrivateBaseUrl must be true or false" }).optional(),
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
    /**
     * Pay again: when a pay-in of an order awaiting payment ends unpaid, the shopper may ask for new
     * payment details for the same order for graceHours; the order is canceled (when
     * cancelUnpaidOrdersOnExpiry is on) only when that period ends with nothing paid. Off by default.
     */
    payAgain: payAgainOptionsSchema.default({ enabled: false, graceHours: PAY_AGAIN_DEFAULT_GRACE_HOURS }),
    /** Shopper notifications (payment instructions, paid, expired) through Medusa's Notification Module; off by default. */
    notifications: notificationsOptionsSchema.default({
      enabled: false,
      channel: "email",
      instructionsTemplate: "payin.instructions",
      paidTemplate: "payin.paid",
      expiredTemplate: "payin.expired",
    }),
  })
  .strict()

/** A retention window in days: 0 (keep forever) up to ten years. */
const retentionDays = (field: string, fallback: number) =>
  z
    .number({ error: `${field} must be a number of days` })
    .int({ message: `${field} must be a whole number of days` })
    .min(0, { message: `${field} must be 0 (keep forever) or more` })
    .max(3650, { message: `${field} must be at most 3650 (ten years)` })
    .default(fallback)

/** The reconciliation job's tick (seconds): every accepted reconcileIntervalSeconds is kept to within one tick. */
export const RECONCILE_TICK_SECONDS = 5

/** Options of the plugin itself (passed to its module). */
export const pluginOptionsSchema = z
  .object({
    /**
     * How often the reconciliation job looks up unfinished pay-ins (the job ticks every
     * RECONCILE_TICK_SECONDS on a worker; the work happens once per interval across all processes).
     */
    reconcileIntervalSeconds: z
      .number({ error: "reconcileIntervalSeconds must be a number" })
      .int({ message: "reconcileIntervalSeconds must be a whole number" })
      .min(10, { message: "reconcileIntervalSeconds must be at least 10" })
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
    /**
     * Attempts at a Medusa effect (capture a paid pay-in, cancel an expired order) before the
     * pay-in is flagged (capture_failed / order_cancel_failed) and left to "Reconcile now".
     */
    effectRetryLimit: z
      .number({ error: "effectRetryLimit must be a number" })
      .int({ message: "effectRetryLimit must be a whole number" })
      .min(1, { message: "effectRetryLimit must be at least 1" })
      .max(100, { message: "effectRetryLimit must be at most 100" })
      .default(5),
    /**
     * Lifetime of the per-pay-in lock (seconds). Applying a status holds it for tens of
     * milliseconds; a process killed while holding it blocks that pay-in until it expires.
     */
    lockTtlSeconds: z
      .number({ error: "lockTtlSeconds must be a number" })
      .int({ message: "lockTtlSeconds must be a whole number" })
      .min(5, { message: "lockTtlSeconds must be at least 5" })
      .max(600, { message: "lockTtlSeconds must be at most 600" })
      .default(30),
    /**
     * Days an applied webhook-inbox entry (with its raw body) is kept after it was applied; then
     * the retention job deletes it. 0 keeps them forever. Entries not applied (received, failed,
     * rejected) are never pruned; neither is the ledger.
     */
    webhookRetentionDays: retentionDays("webhookRetentionDays", 30),
    /**
     * Days the per-day webhook counters (deliveries accepted, repeated, refused: what webhook
     * health shows) are kept. 0 keeps them forever.
     */
    webhookCounterRetentionDays: retentionDays("webhookCounterRetentionDays", 90),
    /**
     * Days the status history of a pay-in is kept after the pay-in ended (closed, canceled or
     * failed, no Medusa effect pending). 0 (the default) keeps it forever. The ledger row (amounts,
     * flags, the service's last answer) is never pruned.
     */
    historyRetentionDays: retentionDays("historyRetentionDays", 0),
    /** Rows the retention job deletes per statement (short transactions on a busy table). */
    pruneBatchSize: z
      .number({ error: "pruneBatchSize must be a number" })
      .int({ message: "pruneBatchSize must be a whole number" })
      .min(10, { message: "pruneBatchSize must be at least 10" })
      .max(10_000, { message: "pruneBatchSize must be at most 10000" })
      .default(1_000),
  })
  .strict()

export type PayinProviderOptionsInput = z.input<typeof providerOptionsSchema>
export type PayinProviderOptions = z.output<typeof providerOptionsSchema>
export type PayinPluginOptionsInput = z.input<typeof pluginOptionsSchema>
export type PayinPluginOptions = z.output<typeof pluginOptionsSchema>

/**
 * Provider options that are groups of fields set one by one (from medusa-config and the admin):
 * each field has its own source and can be reset on its own, as `<group>.<field>`.
 */
export const PROVIDER_OPTION_GROUPS = {
  paymentPage: paymentPageOptionsSchema,
  notifications: notificationsOptionsSchema,
} as const
export type ProviderOptionGroup = keyof typeof PROVIDER_OPTION_GROUPS
