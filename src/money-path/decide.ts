import { type PaidRow, capturableAmount, gt, lt, remainingToCapture } from "../money"
import type { PayinFlag } from "../status"
import { type PayAgainOptions, type PayAgainRow, decideEnd } from "./pay-again"

export type SessionView = {
  status: string
  orderId: string | null
  orderStatus: string | null
  paymentId: string | null
  capturedAmount: string
  collectionCapturedAmount: string
}

type Flagging = { kind: "flag"; flag: Extract<PayinFlag, "late_payment" | "stray_payment">; reason: string; note: string; ended?: string; orderId?: string | null }

export type CaptureStep =
  | Flagging
  | { kind: "skip"; note: string }
  | { kind: "reopen"; orderId: string }
  | { kind: "new_session"; orderId: string }
  | { kind: "authorize"; amount: string; rest: string }
  | { kind: "capture"; amount: string; rest: string }
  | { kind: "complete_cart"; amount: string; rest: string }

export type CaptureRow = PaidRow & { session_id?: string | null }

const AUTHORIZABLE = ["pending", "pending_authorization"]

export function paysLate(row: CaptureRow, session: SessionView | null): boolean {
  return Boolean(row.store_canceled_at) || !session || (Boolean(session.orderId) && !session.paymentId && !AUTHORIZABLE.includes(session.status))
}

export function decideCapture(row: CaptureRow, session: SessionView | null, lateOrderId: string | null): CaptureStep {
  if (paysLate(row, session)) {
    if (lateOrderId) return row.store_canceled_at ? { kind: "reopen", orderId: lateOrderId } : { kind: "new_session", orderId: lateOrderId }
    if (row.store_canceled_at) {
      return { kind: "flag", flag: "late_payment", reason: "paid after the store ended the pay-in (expired or order canceled)", note: "not captured: late payment" }
    }
    const reason = row.session_id ? "paid after Medusa deleted the payment session (the cart changed)" : "pay-in unknown to the store"
    return { kind: "flag", flag: "stray_payment", reason, note: "not captured: stray payment" }
  }
  const s = session!
  if (gt(s.collectionCapturedAmount, s.capturedAmount)) {
    return {
      kind: "flag",
      flag: "stray_payment",
      reason: "paid after the order was paid through another pay-in",
      note: "not captured: the order was paid already",
      orderId: s.orderId,
    }
  }
  if (s.orderId && s.orderStatus === "canceled") {
    return {
      kind: "flag",
      flag: "late_payment",
      reason: "paid after the order was canceled",
      note: "not captured: late payment",
      ended: "order canceled before the payment arrived",
      orderId: s.orderId,
    }
  }
  const amount = capturableAmount(row)
  if (amount === null) return { kind: "skip", note: "not captured: received in another currency" }
  const rest = remainingToCapture(amount, s.capturedAmount)
  if (!s.orderId) return { kind: "complete_cart", amount, rest }
  return { kind: s.paymentId ? "capture" : "authorize", amount, rest }
}

export type BookedOutcome =
  | { kind: "captured"; orderId: string }
  | { kind: "paid_without_order"; captured: boolean }
  | { kind: "short"; message: string }

export function decideBooked(amount: string, after: { orderId: string | null; captured: string; sessionGone: boolean }): BookedOutcome {
  const booked = !lt(after.captured, amount)
  if (after.orderId && booked) return { kind: "captured", orderId: after.orderId }
  if (!after.orderId && (booked || after.sessionGone)) return { kind: "paid_without_order", captured: gt(after.captured, 0) }
  return { kind: "short", message: `Medusa captured ${after.captured} of ${amount} (order ${after.orderId ?? "none"})` }
}

export type EndView = {
  session: (SessionView & { payment_collection_id: string }) | null
  siblings: readonly (PayAgainRow & { paid_at?: unknown; pay_again_until?: unknown })[]
  /** cancelUnpaidOrdersOnExpiry */
  cancelUnpaid: boolean
  payAgain: PayAgainOptions | null | undefined
}

export type EndStep =
  | { kind: "wait"; until: Date; announce: boolean; payAgainStarted: boolean }
  | { kind: "other"; until: Date | null; payinId: string; payAgainStarted: boolean }
  | { kind: "cancel_order"; orderId: string }
  | { kind: "end"; announce: boolean; flag?: { flag: "paid_elsewhere"; paidPayinId: string } }

export function decideOrderEnd(row: PayAgainRow & { pay_again_until?: unknown }, view: EndView, now: number): EndStep {
  const s = view.session
  const capturedAny = Boolean(s && gt(s.collectionCapturedAmount, 0))
  const paidSibling = capturedAny ? undefined : view.siblings.find((r) => r.id !== row.id && r.paid_at)
  if (s?.orderId && s.orderStatus !== "canceled" && !capturedAny && !paidSibling) {
    const decision = decideEnd(row, view.siblings, view.payAgain, now)
    const payAgainStarted = decision.kind !== "cancel" && Boolean(decision.until) && !view.siblings.some((r) => r.pay_again_until)
    if (decision.kind === "wait") return { kind: "wait", until: decision.until, announce: !row.pay_again_until, payAgainStarted }
    if (decision.kind === "other") return { kind: "other", until: decision.until, payinId: decision.payinId, payAgainStarted }
    if (view.cancelUnpaid) return { kind: "cancel_order", orderId: s.orderId }
  }
  const keep = s?.orderId && view.cancelUnpaid && paidSibling
  return {
    kind: "end",
    announce: !capturedAny && !paidSibling && !row.pay_again_until,
    ...(keep ? { flag: { flag: "paid_elsewhere" as const, paidPayinId: paidSibling.id } } : {}),
  }
}
