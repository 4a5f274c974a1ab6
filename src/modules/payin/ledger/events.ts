import type { Transaction } from "../../../client/schemas"
import { isDisputeStatus } from "../../../status"
import { sessionAmount } from "../../../money"
import type { LedgerNotice, LedgerRow } from "./types"

export const PAYIN_EVENTS = {
  DISPUTE_OPENED: "payin.dispute_opened",
  DISPUTE_UPDATED: "payin.dispute_updated",
  AMOUNT_RECALCULATED: "payin.amount_recalculated",
  PAYMENT_FLAGGED: "payin.payment_flagged",
  CAPTURED: "payin.captured",
  EXPIRED: "payin.expired",
} as const

/** The Redis event bus retries a failed subscriber (the notification provider down) with these; the in-memory one ignores them. */
export const RETRIED_EVENT_OPTIONS = { attempts: 3, backoff: { type: "exponential", delay: 5_000 } } as const

export type PayinEvent = { name: string; data: Record<string, unknown>; options?: Record<string, unknown> }

export function eventsOf(row: LedgerRow, notices: LedgerNotice[]): PayinEvent[] {
  const events: PayinEvent[] = []
  for (const notice of notices) {
    if (notice.kind === "flag") {
      events.push({ name: PAYIN_EVENTS.PAYMENT_FLAGGED, data: { ...eventData(row), flag: notice.flag, details: notice.details } })
    } else if (notice.kind === "captured") {
      events.push({ name: PAYIN_EVENTS.CAPTURED, data: { ...eventData(row), order_id: notice.order_id }, options: RETRIED_EVENT_OPTIONS })
    } else if (notice.kind === "expired") {
      events.push({
        name: PAYIN_EVENTS.EXPIRED,
        data: { ...eventData(row), order_id: notice.order_id ?? row.order_id, order_canceled: notice.order_canceled, pay_again_until: notice.pay_again_until ?? null },
        options: RETRIED_EVENT_OPTIONS,
      })
    } else if (notice.to === "dispute" && !isDisputeStatus(notice.from)) {
      events.push({ name: PAYIN_EVENTS.DISPUTE_OPENED, data: eventData(row) })
    } else if (notice.to === "dispute" || notice.to === "checking") {
      events.push({ name: PAYIN_EVENTS.DISPUTE_UPDATED, data: eventData(row) })
    } else if (notice.to === "re_calculation") {
      events.push({ name: PAYIN_EVENTS.AMOUNT_RECALCULATED, data: eventData(row) })
    }
  }
  return events
}

export function eventData(row: LedgerRow): Record<string, unknown> {
  const tx = (row.service_data ?? {}) as Partial<Transaction>
  return {
    id: row.id,
    provider_id: row.provider_id,
    service_id: row.service_id,
    status: row.status,
    session_id: row.session_id,
    payment_collection_id: row.payment_collection_id,
    cart_id: row.cart_id,
    order_id: row.order_id,
    amount: sessionAmount(row),
    currency_code: row.currency_code,
    assigned_amount: row.assigned_amount ?? null,
    fiat_amount: row.fiat_amount,
    paid: Boolean(row.paid_at),
    captured: Boolean(row.captured_at),
    dispute: {
      merchant_check_url: tx.disputeMerchantCheckUrl ?? null,
      trader_check_url: tx.disputeTraderCheckUrl ?? null,
      merchant_fiat_amount: tx.disputeMerchantFiatAmount ?? null,
      trader_fiat_amount: tx.disputeTraderFiatAmount ?? null,
    },
  }
}

export type LedgerEventSink = (events: PayinEvent[]) => Promise<void>

const EMIT_TIMEOUT_MS = 3_000

export type EventBus = { emit(message: PayinEvent[]): Promise<void> }
type Logger = { warn(message: string): void }

/** Bounded: with the Redis event bus and Redis down, emit waits without a limit. */
export function eventBusSink(bus: () => EventBus, logger: () => Logger | undefined): LedgerEventSink {
  return async (events) => {
    if (!events.length) return
    let timer: NodeJS.Timeout | undefined
    try {
      const emitting = bus().emit(events)
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from the event bus within ${EMIT_TIMEOUT_MS} ms`)), EMIT_TIMEOUT_MS)
        timer.unref?.()
      })
      emitting.catch(() => undefined) // a late failure is logged below, or not at all once timed out
      await Promise.race([emitting, late])
    } catch (error) {
      logger()?.warn(
        `payin: could not emit ${events.map((e) => e.name).join(", ")}: ${error instanceof Error ? error.message : String(error)}`
      )
    } finally {
      clearTimeout(timer)
    }
  }
}
