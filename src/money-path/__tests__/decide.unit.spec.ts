import { type CaptureRow, type EndView, type SessionView, decideBooked, decideCapture, decideOrderEnd, paysLate } from "../decide"

const NOW = Date.parse("2026-11-27T12:00:00Z")
const HOUR = 3_600_000

/** A pay-in of a 1790 RUB session, paid in full unless overridden. */
const paid = (over: Partial<CaptureRow> = {}): CaptureRow => ({
  amount: "1790",
  raw_amount: { value: "1790" },
  currency_code: "rub",
  fiat_amount: "1790.00",
  fiat_currency: "RUB",
  paid_at: new Date(NOW),
  store_canceled_at: null,
  session_id: "payses_1",
  ...over,
})

/** Medusa's session of an order awaiting its payment, unless overridden. */
const session = (over: Partial<SessionView> = {}): SessionView => ({
  status: "pending_authorization",
  orderId: "order_1",
  orderStatus: "pending",
  paymentId: null,
  capturedAmount: "0",
  collectionCapturedAmount: "0",
  ...over,
})

describe("decideCapture: the next step of a paid pay-in's capture", () => {
  it.each<[string, CaptureRow, SessionView | null, string | null, Record<string, unknown>]>([
    ["placed order, no Payment yet: Medusa authorizes the session", paid(), session(), null, { kind: "authorize", amount: "1790", rest: "1790" }],
    ["a session made after the order (pay again) is authorized too", paid(), session({ status: "pending" }), null, { kind: "authorize" }],
    ["underpaid: what arrived", paid({ fiat_amount: "1000.00" }), session(), null, { kind: "authorize", amount: "1000", rest: "1000" }],
    ["overpaid: the session amount", paid({ fiat_amount: "2000.00" }), session(), null, { kind: "authorize", amount: "1790" }],
    ["Payment made, part captured: the rest", paid(), session({ paymentId: "pay_1", capturedAmount: "790", collectionCapturedAmount: "790" }), null, { kind: "capture", amount: "1790", rest: "1000" }],
    ["Payment captured in full: nothing more, its order transactions made sure of", paid(), session({ paymentId: "pay_1", capturedAmount: "1790", collectionCapturedAmount: "1790" }), null, { kind: "capture", rest: "0" }],
    ["paid before the order: Medusa completes the cart", paid(), session({ orderId: null, orderStatus: null, status: "pending" }), null, { kind: "complete_cart", rest: "1790" }],
    ["received in another currency", paid({ fiat_currency: "USD" }), session(), null, { kind: "skip", note: "not captured: received in another currency" }],
    ["paid twice: the order's collection was paid through another pay-in", paid(), session({ collectionCapturedAmount: "1790" }), null, { kind: "flag", flag: "stray_payment", orderId: "order_1" }],
    ["order canceled before the money arrived", paid(), session({ orderStatus: "canceled" }), null, { kind: "flag", flag: "late_payment", ended: "order canceled before the payment arrived" }],
    ["session deleted (cart changed), no order awaits it", paid(), null, null, { kind: "flag", flag: "stray_payment", reason: "paid after Medusa deleted the payment session (the cart changed)" }],
    ["no session ever (unknown pay-in)", paid({ session_id: null }), null, null, { kind: "flag", flag: "stray_payment", reason: "pay-in unknown to the store" }],
    ["ended by the store, no order awaits it", paid({ store_canceled_at: new Date(NOW) }), session(), null, { kind: "flag", flag: "late_payment" }],
    ["ended by the store, its order still awaits exactly it: reopened", paid({ store_canceled_at: new Date(NOW) }), session(), "order_1", { kind: "reopen", orderId: "order_1" }],
    ["session deleted by pay again, its order still awaits it: a new session takes it", paid(), null, "order_1", { kind: "new_session", orderId: "order_1" }],
    ["a session the order can no longer be authorized on", paid(), session({ status: "canceled" }), "order_1", { kind: "new_session", orderId: "order_1" }],
  ])("%s", (_, row, medusa, lateOrderId, expected) => {
    expect(decideCapture(row, medusa, lateOrderId)).toMatchObject(expected)
  })

  it("asks for the awaiting order only when the money can only go to it late", () => {
    expect(paysLate(paid(), session())).toBe(false)
    expect(paysLate(paid(), session({ paymentId: "pay_1", status: "authorized" }))).toBe(false)
    expect(paysLate(paid(), session({ orderId: null, status: "pending" }))).toBe(false)
    expect(paysLate(paid(), null)).toBe(true)
    expect(paysLate(paid({ store_canceled_at: new Date(NOW) }), session())).toBe(true)
    expect(paysLate(paid(), session({ status: "error" }))).toBe(true)
  })
})

describe("decideBooked: what Medusa holds after the booking", () => {
  it.each<[string, Parameters<typeof decideBooked>[1], Record<string, unknown>]>([
    ["the order's payment captured what arrived", { orderId: "order_1", captured: "1790", sessionGone: false }, { kind: "captured", orderId: "order_1" }],
    ["more than what arrived cannot be, less is short", { orderId: "order_1", captured: "1000", sessionGone: false }, { kind: "short" }],
    ["captured, but completion placed no order", { orderId: null, captured: "1790", sessionGone: false }, { kind: "paid_without_order", captured: true }],
    ["completion failed and replaced the session", { orderId: null, captured: "0", sessionGone: true }, { kind: "paid_without_order", captured: false }],
    ["nothing happened yet", { orderId: null, captured: "0", sessionGone: false }, { kind: "short" }],
  ])("%s", (_, after, expected) => {
    expect(decideBooked("1790", after)).toMatchObject(expected)
  })
})

describe("decideOrderEnd: the end of a pay-in whose window ended unpaid", () => {
  const row = { id: "p1", status: "canceled", provider_id: "pp_payin_default", status_changed_at: new Date(NOW - HOUR), pay_again_until: null }
  const view = (over: Partial<EndView> = {}): EndView => ({
    session: { ...session({ status: "pending_authorization" }), payment_collection_id: "pay_col_1" },
    siblings: [row],
    cancelUnpaid: true,
    payAgain: { enabled: false, graceHours: 24 },
    ...over,
  })
  const payable = { id: "p2", status: "active", provider_id: "pp_payin_default", expires_at: new Date(NOW + HOUR) }

  it.each<[string, Record<string, unknown>, EndView, Record<string, unknown>]>([
    ["pay again off: the order is canceled", row, view(), { kind: "cancel_order", orderId: "order_1" }],
    ["the instance keeps unpaid orders: the pay-in just ends", row, view({ cancelUnpaid: false }), { kind: "end", announce: true }],
    ["the order canceled already: the pay-in ends", row, view({ session: { ...session({ orderStatus: "canceled" }), payment_collection_id: "pay_col_1" } }), { kind: "end", announce: true }],
    ["no order (the cart never completed)", row, view({ session: { ...session({ orderId: null, orderStatus: null }), payment_collection_id: "pay_col_1" } }), { kind: "end", announce: true }],
    ["the session is gone", row, view({ session: null, siblings: [] }), { kind: "end", announce: true }],
    ["the order's collection was captured: kept, nothing announced", row, view({ session: { ...session({ collectionCapturedAmount: "1790" }), payment_collection_id: "pay_col_1" } }), { kind: "end", announce: false }],
    ["another pay-in of the collection was paid: kept and flagged", row, view({ siblings: [row, { ...payable, paid_at: new Date(NOW) }] }), { kind: "end", announce: false, flag: { flag: "paid_elsewhere", paidPayinId: "p2" } }],
    ["another pay-in of the order is payable: its end decides", row, view({ siblings: [row, payable] }), { kind: "other", payinId: "p2" }],
    ["pay again on: the order waits for the grace period, the shopper told once", row, view({ payAgain: { enabled: true, graceHours: 24 } }), { kind: "wait", announce: true, payAgainStarted: true }],
    ["a grace period already running: the order waits to its end, nothing told again", { ...row, pay_again_until: new Date(NOW + HOUR) }, view({ payAgain: { enabled: true, graceHours: 24 }, siblings: [{ ...row, pay_again_until: new Date(NOW + HOUR) }] }), { kind: "wait", announce: false, payAgainStarted: false }],
    ["the grace period is over: canceled", { ...row, pay_again_until: new Date(NOW - 1) }, view({ payAgain: { enabled: true, graceHours: 24 }, siblings: [{ ...row, pay_again_until: new Date(NOW - 1) }] }), { kind: "cancel_order" }],
  ])("%s", (_, end, state, expected) => {
    expect(decideOrderEnd(end as Parameters<typeof decideOrderEnd>[0], state, NOW)).toMatchObject(expected)
  })

  it("waits until the grace period's end, counted from the first unpaid end", () => {
    const step = decideOrderEnd(row, view({ payAgain: { enabled: true, graceHours: 24 } }), NOW)
    expect(step).toMatchObject({ kind: "wait", until: new Date(NOW - HOUR + 24 * HOUR) })
  })
})
