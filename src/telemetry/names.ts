// Every name the plugin reports to OpenTelemetry: the tracer and meter, the spans, the metrics and
// the attributes with the values each may take. What is not listed here cannot be set (attributes.ts
// drops it): ids only where a pattern proves they are ids, never free text, so the API key, a
// signature, requisites or the shopper's data cannot reach an exporter by mistake.
import { SERVICE_OPERATIONS, type ServiceOperation } from "../client/calls"
import { SERVICE_OUTCOMES } from "../client/outcome"
import type { SignatureCheck } from "../client/signature"
import { PROVIDER_ID_PATTERN } from "../provider-id"
import { LEDGER_STATUSES } from "../status"

/** The instrumentation scope of the tracer and the meter. */
export const INSTRUMENTATION_SCOPE = "medusa-plugin-payin"

export const SPANS = {
  webhook: "payin.webhook",
  webhookVerify: "payin.webhook.verify",
  webhookStore: "payin.webhook.store",
  webhookBook: "payin.webhook.book",
  apply: "payin.apply",
  effect: { capture: "payin.effect.capture", cancel_order: "payin.effect.cancel_order" },
  notification: "payin.notification",
  reconcile: "payin.reconcile",
  healthCheck: "payin.health.check",
  service: Object.fromEntries(SERVICE_OPERATIONS.map((op) => [op, `payin.service.${op}`])) as Record<ServiceOperation, `payin.service.${ServiceOperation}`>,
} as const

export const METRICS = {
  webhooks: { name: "payin.webhooks", unit: "{webhook}", description: "Webhook requests answered, by outcome" },
  webhookToCapture: {
    name: "payin.webhook_to_capture.duration",
    unit: "s",
    description: "From the receipt of the webhook that reported a payment (else from when the ledger recorded it) to Medusa's capture",
    // a capture retried by reconciliation waits 30 s to an hour: buckets reach that far
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400],
  },
  serviceDuration: {
    name: "payin.service.duration",
    unit: "s",
    description: "Calls to the payment service (retries included), by operation and outcome",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  },
  serviceErrors: { name: "payin.service.errors", unit: "{error}", description: "Failed calls to the payment service, by operation and kind" },
  effects: { name: "payin.effects", unit: "{effect}", description: "Medusa effects (capture, order cancel) and shopper notifications run, by outcome" },
  statusChanges: { name: "payin.status_changes", unit: "{change}", description: "Pay-in status changes the ledger recorded, from → to" },
} as const

export const WEBHOOK_OUTCOMES = [
  "stored",
  "duplicate",
  "foreign",
  "late",
  "unavailable",
  "unknown_provider",
  "not_configured",
  "invalid_body",
  "signature_missing",
  "signature_malformed",
  "signature_mismatch",
  "invalid_transaction",
  "error",
] as const
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number]

/** What booking a stored webhook came to: applied, left for a retry, refused for good (another account's pay-in, a body that is no Transaction). */
export const BOOKING_OUTCOMES = ["applied", "queued", "foreign", "invalid_transaction"] as const
export type BookingOutcome = (typeof BOOKING_OUTCOMES)[number]

export const EFFECTS = ["capture", "cancel_order", "notification"] as const
export type Effect = (typeof EFFECTS)[number]

/** Capture / order cancel: done, failed (retried when due), stopped (another runner holds it), deferred (backing off), error (threw); notifications: their NotifyOutcome. */
export const EFFECT_OUTCOMES = ["done", "failed", "stopped", "deferred", "error", "sent", "already_sent", "disabled", "skipped"] as const
export type EffectOutcome = (typeof EFFECT_OUTCOMES)[number]

/** What ran the apply path (the ledger's StatusSource), or "retry": an effect retried by reconciliation or "Reconcile now". */
export const SOURCES = ["create", "webhook", "lookup", "store", "admin", "authorize", "retry"] as const
export type Source = (typeof SOURCES)[number]

export const NOTIFICATION_KINDS = ["instructions", "paid", "expired"] as const
export const NOTIFICATION_TRIGGERS = ["order.placed", "payment.captured", "payin.captured", "payin.expired", "retry"] as const

const SIGNATURE_CHECKS = ["ok", "missing", "malformed", "mismatch"] as const satisfies readonly SignatureCheck[]

type Rule<T> = { check: (value: unknown) => value is T }

function oneOf<T extends string>(values: readonly T[]): Rule<T> {
  const set = new Set<string>(values)
  return { check: (value): value is T => typeof value === "string" && set.has(value) }
}
function matching(pattern: RegExp): Rule<string> {
  return { check: (value): value is string => typeof value === "string" && pattern.test(value) }
}
const count: Rule<number> = { check: (value): value is number => Number.isSafeInteger(value) && (value as number) >= 0 }
const yesNo: Rule<boolean> = { check: (value): value is boolean => typeof value === "boolean" }

/** The allow-list: each attribute the plugin may set, and the values it accepts. */
export const ATTRIBUTES = {
  /** The instance (`pp_payin_<id>`); a URL's unknown id is never set. */
  "payin.provider_id": matching(PROVIDER_ID_PATTERN),
  /** The ledger's id of the pay-in (`payintx_…`): finds it in the admin. */
  "payin.id": matching(/^payintx_[0-9A-Za-z]{10,40}$/),
  "payin.source": oneOf(SOURCES),
  "payin.webhook.outcome": oneOf(WEBHOOK_OUTCOMES),
  "payin.webhook.signature": oneOf(SIGNATURE_CHECKS),
  /** The settings were read again (a key rotated on another process) before the signature was refused or accepted. */
  "payin.webhook.key_reread": yesNo,
  /** What booking a stored webhook came to (the worker's drain): applied, retried later, refused for good. */
  "payin.webhook.booking": oneOf(BOOKING_OUTCOMES),
  /** False: the inbox held this exact callback already. */
  "payin.inbox.new": yesNo,
  "payin.status.from": oneOf(LEDGER_STATUSES),
  "payin.status.to": oneOf(LEDGER_STATUSES),
  "payin.status.changed": yesNo,
  "payin.effect": oneOf(EFFECTS),
  "payin.effect.outcome": oneOf(EFFECT_OUTCOMES),
  "payin.effect_pending": yesNo,
  "payin.service.operation": oneOf(SERVICE_OPERATIONS),
  "payin.service.outcome": oneOf(SERVICE_OUTCOMES),
  /** HTTP exchanges after the first (GETs retried, a POST settled by a lookup). */
  "payin.service.retries": count,
  "http.response.status_code": count,
  "payin.notification.kind": oneOf(NOTIFICATION_KINDS),
  "payin.notification.trigger": oneOf(NOTIFICATION_TRIGGERS),
  "payin.reconcile.checked": count,
  "payin.reconcile.changed": count,
  "payin.reconcile.errors": count,
  "payin.reconcile.effects_retried": count,
  /** The error's class name, never its message (a message may quote anything). */
  "error.type": matching(/^[A-Za-z][A-Za-z0-9_]{0,63}$/),
} as const

export type AttributeName = keyof typeof ATTRIBUTES
type ValueOf<R> = R extends Rule<infer T> ? T : never
export type PayinAttributes = { [K in AttributeName]?: ValueOf<(typeof ATTRIBUTES)[K]> | null }

/** Metrics take only these (no ids: each value makes a time series). */
export const METRIC_ATTRIBUTES = [
  "payin.provider_id",
  "payin.source",
  "payin.webhook.outcome",
  "payin.effect",
  "payin.effect.outcome",
  "payin.service.operation",
  "payin.service.outcome",
  "payin.status.from",
  "payin.status.to",
] as const satisfies readonly AttributeName[]
export type MetricAttributes = Pick<PayinAttributes, (typeof METRIC_ATTRIBUTES)[number]>
