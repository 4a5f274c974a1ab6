import { createHash } from "crypto"
import { decimal2, sessionAmount } from "../../../money"
import { OPEN_SHOPPER_STATES, isFinalShopperState, shopperStateOf, type ShopperState } from "../../../status"
import type { PayinRequisiteView, PayinStatusResponse, PayinStatusView } from "../../../storefront/types"

// Only PayinStatusView's fields leave the server: never the merchant fee, crypto amounts, flags, payer info or the service's raw data.

export type StatusRow = {
  provider_id: string
  service_id: string | null
  status: string
  amount?: unknown
  raw_amount?: { value?: unknown } | null
  currency_code: string
  fiat_amount: string | null
  fiat_currency?: unknown
  method?: unknown
  bank?: unknown
  requisite: Record<string, unknown> | null
  payment_page_url: string | null
  expires_at: Date | string | null
  created_at?: unknown
  status_changed_at?: unknown
  session_deleted_at: Date | string | null
  store_canceled_at: Date | string | null
  recalculated_at: Date | string | null
  paid_at?: Date | string | null
  effect_pending?: string | null
  effect_attempts?: number | null
  pay_again_until?: Date | string | null
}

/** A pay-in the store ended, or whose session Medusa deleted, is `canceled` while the service still holds it open: paying into it would be a stray payment. */
export function payinState(
  row: Pick<StatusRow, "status" | "store_canceled_at" | "session_deleted_at"> & { paid_at?: unknown }
): ShopperState {
  return shopperStateOf(row.status, {
    paid: Boolean(row.paid_at),
    endedByStore: Boolean(row.store_canceled_at || row.session_deleted_at),
  })
}

export function secondsLeft(state: ShopperState, expiresAt: Date | string | null, now: Date): number {
  const expires = toDate(expiresAt)
  if (state !== "awaiting_payment" || !expires) return 0
  return Math.max(0, Math.floor((expires.getTime() - now.getTime()) / 1000))
}

export type StatusViewContext = {
  now: Date
  /** The service's first fiat amount when the row was recalculated since (`fiat_amount` then holds the new one). */
  originalFiatAmount?: string | null
  effectRetryLimit?: number
}

export function effectStillPending(
  row: Pick<StatusRow, "effect_pending" | "effect_attempts" | "pay_again_until">,
  effectRetryLimit = Infinity,
  now = new Date()
): boolean {
  // pay again: the order's cancel waits for the grace period; until the shopper acts nothing changes
  const waiting = row.effect_pending === "cancel_order" && row.pay_again_until && new Date(row.pay_again_until).getTime() > now.getTime()
  return Boolean(row.effect_pending) && !waiting && (row.effect_attempts ?? 0) < effectRetryLimit
}

export function toStatusView(row: StatusRow, context: StatusViewContext): PayinStatusView {
  const state = payinState(row)
  const payable = OPEN_SHOPPER_STATES.includes(state)
  const recalculated = Boolean(row.recalculated_at)
  // The amount first asked for: with a fiatAmountRange the service picks one inside the range, not necessarily the order total.
  const session = decimal2(sessionAmount(row))
  const fiat = decimal2(row.fiat_amount)
  const amount =
    decimal2(context.originalFiatAmount) ?? (recalculated ? (session ?? fiat) : (fiat ?? session))
  return {
    provider_id: row.provider_id,
    payin_id: row.service_id ?? null,
    state,
    service_status: row.status,
    final: isFinalShopperState(state) && !effectStillPending(row, context.effectRetryLimit, context.now),
    amount: amount ?? "0.00",
    currency: String(text(row.fiat_currency) ?? row.currency_code).toUpperCase(),
    paid_amount: recalculated || (fiat !== null && amount !== null && fiat !== amount) ? fiat : null,
    method: text(row.method),
    bank: text(row.bank) ?? text(row.requisite?.bank),
    requisite: payable ? requisiteView(row.requisite) : null,
    payment_page_url: payable ? (row.payment_page_url ?? null) : null,
    created_at: iso(row.created_at) ?? context.now.toISOString(),
    expires_at: iso(row.expires_at),
    seconds_left: secondsLeft(state, row.expires_at, context.now),
    paid_at: state === "paid" ? (iso(row.paid_at) ?? iso(row.status_changed_at)) : null,
  }
}

function requisiteView(requisite: Record<string, unknown> | null): PayinRequisiteView | null {
  if (!requisite) return null
  const number = text(requisite.requisites)
  if (!number) return null
  return {
    bank: text(requisite.bank) ?? "",
    owner_name: text(requisite.ownerName) ?? "",
    number,
    sbp_number: text(requisite.sbpNumber),
  }
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null
}

function toDate(value: unknown): Date | null {
  if (value === null || value === undefined || value === "") return null
  const date = value instanceof Date ? value : new Date(value as string)
  return Number.isNaN(date.getTime()) ? null : date
}

function iso(value: unknown): string | null {
  return toDate(value)?.toISOString() ?? null
}

/**
 * What a held status request compares: the answer without the clock (`server_time`, and
 * `seconds_left` counted only as "window open"), so it changes exactly when what the shopper sees does.
 */
export function viewTag(body: Omit<PayinStatusResponse, "view_tag" | "long_poll">): string {
  const { server_time: _time, ...rest } = body as PayinStatusResponse
  delete rest.view_tag
  delete rest.long_poll
  const payin = rest.payin ? { ...rest.payin, seconds_left: rest.payin.seconds_left > 0 } : null
  return createHash("sha256").update(JSON.stringify({ ...rest, payin })).digest("base64url").slice(0, 22)
}
