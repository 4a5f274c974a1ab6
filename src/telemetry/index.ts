// The plugin's spans and metrics through @opentelemetry/api alone: no-ops unless the store registers
// OpenTelemetry (README.md beside this file lists every name). One call per instrumented site.
import type { ServiceCall } from "../client/calls"
import { type ServiceOutcome, serviceOutcomeOf } from "../client/outcome"
import { payinProviderId } from "../provider-id"
import { record } from "./metrics"
import { ROOT_CONTEXT, context } from "@opentelemetry/api"
import { ATTRIBUTES, type BookingOutcome, type EffectOutcome, SPANS, type Source, type WebhookOutcome } from "./names"
import { type PayinSpan, traced } from "./trace"

export { SPANS, traced, type BookingOutcome, type PayinSpan, type WebhookOutcome }

/** One call to the service, retries included (the client's `around` hook): span `payin.service.<operation>`, its duration and outcome. */
export function traceServiceCall<T>(call: ServiceCall, run: () => Promise<T>): Promise<T> {
  const { operation } = call
  const started = performance.now()
  return traced(SPANS.service[operation], { "payin.service.operation": operation }, async (span) => {
    let outcome: ServiceOutcome = "ok"
    try {
      return await run()
    } catch (error) {
      outcome = serviceOutcomeOf(error)
      throw error
    } finally {
      span.set({
        "payin.service.outcome": outcome,
        "payin.service.retries": Math.max(0, call.exchanges - 1),
        "http.response.status_code": call.lastStatus,
      })
      record.serviceCall((performance.now() - started) / 1000, { "payin.service.operation": operation, "payin.service.outcome": outcome })
    }
  })
}

/** The webhook route's answer: span `payin.webhook` (verify, store and apply under it) and the count by outcome. */
export async function traceWebhook(instanceId: string, answer: (span: PayinSpan) => Promise<WebhookOutcome>, status: () => number): Promise<void> {
  await traced(SPANS.webhook, {}, async (span) => {
    let outcome: WebhookOutcome = "error"
    try {
      outcome = await answer(span)
    } finally {
      // an unknown instance's id is whatever the URL said: never an attribute
      const providerId = outcome === "unknown_provider" ? null : payinProviderId(instanceId)
      span.set({ "payin.webhook.outcome": outcome, "payin.provider_id": providerId, "http.response.status_code": outcome === "error" ? null : status() })
      record.webhook({ "payin.webhook.outcome": outcome, "payin.provider_id": providerId })
    }
  })
}

/** A capture or an order cancel: span `payin.effect.<effect>` and the count by outcome. */
export function traceEffect<T extends { outcome: EffectOutcome }>(effect: "capture" | "cancel_order", ledgerId: string, work: () => Promise<T>): Promise<T> {
  return traced(SPANS.effect[effect], { "payin.id": ledgerId, "payin.effect": effect }, async (span) => {
    let outcome: EffectOutcome = "error"
    try {
      const result = await work()
      outcome = result.outcome
      return result
    } finally {
      span.set({ "payin.effect.outcome": outcome })
      record.effect({ "payin.effect": effect, "payin.effect.outcome": outcome })
    }
  })
}

/** Medusa captured a pay-in's money now: the time since `since` (the webhook's receipt, else when the ledger recorded the payment). */
export function capturedSince(since: number | Date | string | null | undefined, source: Source | undefined): void {
  if (since === null || since === undefined) return
  const at = typeof since === "number" ? since : new Date(since).getTime()
  if (Number.isFinite(at)) record.webhookToCapture((Date.now() - at) / 1000, { "payin.source": source ?? "retry" })
}

/** A shopper notification decided and sent (or not): span `payin.notification` and the count by outcome. */
export function traceNotification<T extends { kind: string | null; outcome: EffectOutcome }>(trigger: string, work: () => Promise<T>): Promise<T> {
  const known = ATTRIBUTES["payin.notification.trigger"].check(trigger) ? trigger : null
  return traced(SPANS.notification, { "payin.effect": "notification", "payin.notification.trigger": known }, async (span) => {
    let outcome: EffectOutcome = "error"
    try {
      const result = await work()
      outcome = result.outcome
      if (ATTRIBUTES["payin.notification.kind"].check(result.kind)) span.set({ "payin.notification.kind": result.kind })
      return result
    } finally {
      span.set({ "payin.effect.outcome": outcome })
      record.effect({ "payin.effect": "notification", "payin.effect.outcome": outcome })
    }
  })
}

type ReconcileCounts = { checked: number; changed: number; errors: number; effectsRetried: number }

/** Booking one stored webhook (the drain, on the worker): a root span, its apply under it. */
export function traceBooking(providerId: string, work: () => Promise<BookingOutcome>): Promise<BookingOutcome> {
  return context.with(ROOT_CONTEXT, () => traced(SPANS.webhookBook, { "payin.provider_id": providerId }, work, (booking) => ({ "payin.webhook.booking": booking })))
}

/** One reconciliation run: span `payin.reconcile` with its counts (its lookups, applies and effects nest under it). */
export function traceReconcile<T extends ReconcileCounts>(work: () => Promise<T>): Promise<T> {
  return traced(SPANS.reconcile, {}, work, (report) => ({
    "payin.reconcile.checked": report.checked,
    "payin.reconcile.changed": report.changed,
    "payin.reconcile.errors": report.errors,
    "payin.reconcile.effects_retried": report.effectsRetried,
  }))
}

/** The status changes of a committed ledger write (its notices), counted from → to. */
export function countStatusChanges(notices: readonly { kind: string; from?: unknown; to?: unknown }[]): void {
  for (const notice of notices) {
    const { from, to } = notice
    if (notice.kind === "status" && ATTRIBUTES["payin.status.from"].check(from) && ATTRIBUTES["payin.status.to"].check(to)) {
      record.statusChange({ "payin.status.from": from, "payin.status.to": to })
    }
  }
}
