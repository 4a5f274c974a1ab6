// Money to the cent (issue 23): what Medusa books is what arrived. Every figure is read from
// Medusa's own records — the payment's captures, the payment collection's captured amount, the
// order's payment status and summary — on every path that can capture: the webhook, the
// reconciliation job, "Reconcile now", a capture from the admin, a cart completed afterwards, and
// late or repeated webhooks after any of them.
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { reconcilePayins } from "../../src/money-path/reconcile"
import type { RunningSandbox } from "../../src/sandbox"
import { storeSpec } from "../support/harness"
import { control, payinsOfSession } from "../support/sandbox"
import { Storefront } from "../support/storefront"

jest.setTimeout(240_000)

const KEY = "captured-amount-key-0123456789"

const cents = (value: unknown) => Math.round(Number(value) * 100)

storeSpec({ key: KEY }, (h) => {
  const { api, getContainer, sql } = h
  let sandbox: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
  beforeEach(() => void ({ sandbox, shop, admin } = h))

  const row = (sessionId: string) => h.ledger.row({ session_id: sessionId })

  /** What Medusa booked for a session and its order, from Medusa's own records (amounts in cents). */
  const booked = async (sessionId: string, orderId?: string) => {
    const query = getContainer().resolve(ContainerRegistrationKeys.QUERY)
    const { data: payments } = await query.graph({
      entity: "payment",
      fields: ["id", "amount", "captured_at", "canceled_at", "captures.amount"],
      filters: { payment_session_id: sessionId },
    })
    const { data: sessions } = await query.graph({
      entity: "payment_session",
      fields: ["id", "status", "payment_collection.captured_amount", "payment_collection.status"],
      filters: { id: sessionId },
    })
    const captures = (payments as any[]).flatMap((p) => p.captures ?? []).map((c: any) => cents(c.amount))
    const result = {
      payments: payments.length,
      captured: captures.reduce((a, b) => a + b, 0),
      captures: captures.length,
      collectionCaptured: cents(sessions[0]?.payment_collection?.captured_amount ?? 0),
      paymentStatus: undefined as string | undefined,
      paidTotal: undefined as number | undefined,
      owed: undefined as number | undefined,
      orderStatus: undefined as string | undefined,
    }
    if (orderId) {
      const { data } = await api.get(`/admin/orders/${orderId}?fields=id,status,payment_status,total,summary`, admin)
      result.paymentStatus = data.order.payment_status
      result.paidTotal = cents(data.order.summary.paid_total)
      result.owed = cents(data.order.summary.pending_difference)
      result.orderStatus = data.order.status
    }
    return result
  }

  /** Posts a callback and waits for its booking: the answer's status, and whether an effect is still pending. */
  const postWebhook = async (body: string) => {
    const answer = await h.webhookApplied(body)
    return answer.applied.effectPending ? "effect pending" : answer.status
  }
  /** The service's signed callback for a pay-in, with what it says arrived. */
  const closedWith = (txId: string, patch: Record<string, unknown>) =>
    postWebhook(JSON.stringify({ ...sandbox.transaction(txId), status: "closed", ...patch }))

  const placedOrder = () => h.placedOrder()
  /** A cart with its pay-in session, not completed yet (the shopper pays first). */
  const sessionFirst = async () => {
    const { cartId, session, payin } = await h.cartWithPayin()
    return { cartId, session, tx: payin }
  }
  /** An admin API call that resolves with the error answer instead of throwing. */
  const adminPost = async (url: string, body: unknown): Promise<{ status: number; data: any }> =>
    api.post(url, body, admin).then(
      (r: any) => ({ status: r.status, data: r.data }),
      (e: any) => ({ status: e.response?.status as number, data: e.response?.data })
    )
  const adminCapture = (paymentId: string, amount: number) => adminPost(`/admin/payments/${paymentId}/capture`, { amount })

  it("underpaid, order first: Medusa captures exactly what arrived and shows what is still owed; nothing captures the rest", async () => {
    const { payin: tx, orderId, session } = await placedOrder()
    const total = cents(tx.fiatAmount)
    const half = (total / 200).toFixed(2)
    expect(await closedWith(tx.id, { fiatAmount: half })).toBe(200)

    const after = await booked(session.id, orderId)
    expect(after).toMatchObject({ payments: 1, captured: cents(half), collectionCaptured: cents(half) })
    expect(after).toMatchObject({ paymentStatus: "partially_captured", paidTotal: cents(half), owed: total - cents(half) })
    const flagged = await row(session.id)
    expect(flagged.flags.underpayment).toMatchObject({ received_amount: half, captured_amount: half })
    expect(cents(flagged.flags.underpayment.missing_amount)).toBe(total - cents(half))

    // a late duplicate callback, the reconciliation job and "Reconcile now" book nothing more
    expect(await closedWith(tx.id, { fiatAmount: half })).toBe(200)
    await reconcilePayins(getContainer(), { olderThanSeconds: 0 })
    await api.post(`/admin/payin/transactions/${flagged.id}/reconcile`, {}, admin)
    // an admin's capture of the difference is refused by the provider: that money never came
    const [payment] = (await getContainer()
      .resolve(ContainerRegistrationKeys.QUERY)
      .graph({ entity: "payment", fields: ["id"], filters: { payment_session_id: session.id } })).data as any[]
    const refused = await adminCapture(payment.id, (total - cents(half)) / 100)
    expect(refused.status).toBeGreaterThanOrEqual(400)
    expect(JSON.stringify(refused.data)).toMatch(/payin_capture_exceeds_received/)
    expect(await booked(session.id, orderId)).toMatchObject({ captured: cents(half), captures: 1, collectionCaptured: cents(half), owed: total - cents(half) })
  })

  it("overpaid: the order total is captured, not more, and the excess is flagged with its amount", async () => {
    const { payin: tx, orderId, session } = await placedOrder()
    const total = cents(tx.fiatAmount)
    const more = ((total + 10_000) / 100).toFixed(2)
    expect(await closedWith(tx.id, { fiatAmount: more })).toBe(200)
    expect(await booked(session.id, orderId)).toMatchObject({
      captured: total,
      collectionCaptured: total,
      paymentStatus: "captured",
      paidTotal: total,
      owed: 0,
    })
    expect((await row(session.id)).flags.overpayment).toMatchObject({ received_amount: more, excess_amount: "100.00" })
  })

  it("recalculated to less, through reconciliation (callbacks lost): the recalculated amount is captured", async () => {
    const { payin: tx, orderId, session } = await placedOrder()
    const total = cents(tx.fiatAmount)
    const less = ((total - 29_000) / 100).toFixed(2)
    sandbox.updateMerchant({ webhookUrl: null })
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/dispute`)
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/recalculate`, { fiatAmount: less })
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/close`)
    await reconcilePayins(getContainer(), { olderThanSeconds: 0 })
    expect(await booked(session.id, orderId)).toMatchObject({
      captured: cents(less),
      collectionCaptured: cents(less),
      paymentStatus: "partially_captured",
      owed: total - cents(less),
    })
    // a late callback of the same close changes nothing
    sandbox.updateMerchant({ webhookUrl: `${api.defaults.baseURL}/hooks/payin/default` })
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/webhook`)
    await h.deliver()
    expect(await booked(session.id, orderId)).toMatchObject({ captured: cents(less), captures: 1 })
  })

  it("underpaid, paid first: the effect completes the cart for what arrived; the shopper's later completion books nothing more", async () => {
    const { cartId, session, tx } = await sessionFirst()
    const total = cents(tx.fiatAmount)
    const part = ((total - 50_000) / 100).toFixed(2)
    expect(await closedWith(tx.id, { fiatAmount: part })).toBe(200)
    const completed = await shop.complete(cartId)
    expect(completed.data.type).toBe("order")
    const orderId = completed.data.order.id
    expect(await booked(session.id, orderId)).toMatchObject({
      payments: 1,
      captured: cents(part),
      collectionCaptured: cents(part),
      paymentStatus: "partially_captured",
      paidTotal: cents(part),
      owed: total - cents(part),
    })
  })

  it("underpaid via 'Reconcile now' after a capture failure, and an admin capture in between: the total never exceeds what arrived", async () => {
    await api.post("/admin/payin/settings", { effectRetryLimit: 1 }, admin)
    const { payin: tx, orderId, session } = await placedOrder()
    const total = cents(tx.fiatAmount)
    const part = ((total - 40_000) / 100).toFixed(2)
    // Medusa creates the payment, then cannot write its capture: the payment stays authorized
    await sql(`alter table capture add constraint payin_test_block check (false) not valid`)
    try {
      // recorded; the capture is still to happen
      expect(await closedWith(tx.id, { fiatAmount: part })).toBe("effect pending")
    } finally {
      await sql(`alter table capture drop constraint payin_test_block`)
    }
    const pending = await booked(session.id, orderId)
    expect(pending).toMatchObject({ payments: 1, captured: 0 })
    const [payment] = (await getContainer()
      .resolve(ContainerRegistrationKeys.QUERY)
      .graph({ entity: "payment", fields: ["id", "canceled_at"], filters: { payment_session_id: session.id } })).data as any[]
    // the rolled-back capture did not cancel the payment: the money arrived
    expect(payment.canceled_at).toBeNull()
    // the admin captures the whole order total: refused; then a part of what arrived: booked
    expect((await adminCapture(payment.id, total / 100)).status).toBeGreaterThanOrEqual(400)
    expect((await adminCapture(payment.id, 100)).status).toBe(200)
    // "Reconcile now" captures the rest of what arrived, and only that
    const failed = await row(session.id)
    const { data } = await api.post(`/admin/payin/transactions/${failed.id}/reconcile`, {}, admin)
    expect(data.result).toMatchObject({ effects: ["captured"], effectPending: false })
    expect(await booked(session.id, orderId)).toMatchObject({
      captured: cents(part),
      captures: 2,
      collectionCaptured: cents(part),
      paymentStatus: "partially_captured",
      owed: total - cents(part),
    })
    await api.post("/admin/payin/settings", { effectRetryLimit: null }, admin)
  })

  it("received in another currency: nothing is captured, order first or cart completed afterwards", async () => {
    const first = await placedOrder()
    expect(await closedWith(first.payin.id, { fiatCurrency: "USD" })).toBe(200)
    expect(await booked(first.session.id, first.orderId)).toMatchObject({ payments: 0, captured: 0, paymentStatus: "awaiting", paidTotal: 0 })
    expect((await row(first.session.id)).flags.underpayment).toMatchObject({ reason: "received in another currency" })

    const later = await sessionFirst()
    expect(await closedWith(later.tx.id, { fiatCurrency: "USD" })).toBe(200)
    const completed = await shop.complete(later.cartId)
    expect(completed.data.type).toBe("order")
    const after = await booked(later.session.id, completed.data.order.id)
    expect(after).toMatchObject({ payments: 0, captured: 0, collectionCaptured: 0, paymentStatus: "awaiting", paidTotal: 0 })
    expect(after.owed).toBe(cents(later.tx.fiatAmount))
  })

  it("paid after the store ended the pay-in, before any order: a cart completed afterwards captures nothing", async () => {
    const { cartId, session, tx } = await sessionFirst()
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/expire`)
    await h.deliver()
    const ended = await row(session.id)
    expect(ended.store_canceled_at).not.toBeNull()
    // the shopper pays late: the service closes the pay-in after all
    expect(await closedWith(tx.id, {})).toBe(200)
    expect((await row(session.id)).flags.late_payment).toBeDefined()
    const completed = await shop.complete(cartId)
    expect(completed.data.type).toBe("order")
    expect(await booked(session.id, completed.data.order.id)).toMatchObject({ payments: 0, captured: 0, paymentStatus: "awaiting", paidTotal: 0 })
  })
})
