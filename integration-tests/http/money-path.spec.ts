// One money path: regression tests of the defects found by the review (issue 12), each on a real
// Medusa, real PostgreSQL and the sandbox over HTTP. Two merchant accounts: instance "default"
// (KEY) and instance "second" (SECOND_KEY), each with its own sandbox.
import { Modules } from "@medusajs/framework/utils"
import { sign } from "../../src/client/signature"
import { lockingProbed } from "../../src/medusa"
import { applyPayinEvent } from "../../src/money-path/apply"
import { reconcilePayins } from "../../src/money-path/reconcile"
import type { RunningSandbox } from "../../src/sandbox"
import { PLUGIN_BOOKING_BUDGET, countStatements, statementLines } from "../bench/statements"
import { PAYIN_EVENTS, storeSpec } from "../support/harness"
import { eventually } from "../support/medusa-process"
import { control, payinsOfSession } from "../support/sandbox"
import { Storefront } from "../support/storefront"

jest.setTimeout(240_000)
process.env.PAYIN_ENCRYPTION_KEY ??= "money-path-encryption-secret-0123456789"

const KEY = "money-path-key-0123456789"
const SECOND_KEY = "money-path-second-9876543210"

storeSpec({ key: KEY, secondKey: SECOND_KEY, events: true }, (h) => {
  const { api, getContainer, events, deliver, payin, sql } = h
  let sandbox: RunningSandbox, second: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
  beforeEach(() => void ({ sandbox, second, shop, admin } = h))

  const row = h.ledger.row
  const order = (orderId: string) => h.order(orderId)
  const paymentsOf = (sessionId: string) => h.paymentsOf(sessionId, ["id", "amount", "captured_at", "captures.amount", "refunds.id"])
  const postWebhook = (instance: string, body: string, key: string, signature?: string) => h.webhook(body, { instance, key, signature })
  /** A placed order waiting for its payment (`tx`: its pay-in at the service). */
  const placedOrder = async () => {
    const placed = await h.placedOrder()
    return { ...placed, tx: placed.payin }
  }

  it("defect 1: a callback verified with another account's key never changes this account's pay-in", async () => {
    const { tx, orderId, session } = await placedOrder()
    // the shopper knows the second (test) account's key and forges "closed" for the first account's pay-in
    const forged = JSON.stringify({ ...sandbox.transaction(tx.id), status: "closed" })
    // stored and answered 200; refused when booked (the pay-in belongs to the other account)
    const answer = await h.webhookApplied(forged, { instance: "second", key: SECOND_KEY })
    expect(answer.status).toBe(200)
    expect(answer.applied).toMatchObject({ state: "rejected", last_error: expect.stringContaining("another") })
    // the second instance's webhook health counts it once, as rejected, not as accepted
    const health = (await api.get("/admin/payin/webhook-health", admin)).data.providers.find((p: any) => p.id === "second")
    expect(health).toMatchObject({ accepted: 0, rejected: 1, last_failure_reason: "foreign_payin" })
    // delivered again: refused at once
    const again = await postWebhook("second", forged, SECOND_KEY)
    expect([again.status, again.body.code]).toEqual([403, "foreign_payin"])
    const after = await row({ session_id: session.id })
    expect(after).toMatchObject({ status: "active", paid_at: null, captured_at: null, effect_pending: null })
    expect((await order(orderId)).payment_status).toBe("awaiting")
    expect(await paymentsOf(session.id)).toHaveLength(0)
    // the real callback still works
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
    await deliver()
    expect((await order(orderId)).payment_status).toBe("captured")
  })

  it("two merchant accounts whose services issue the same transaction id: each keeps its own pay-in", async () => {
    const { tx, orderId, session } = await placedOrder()
    // the second account's service reports its own pay-in under the same id (no session of this store)
    const theirs = JSON.stringify({ ...sandbox.transaction(tx.id), status: "closed", extra: { externalTransactionId: "their-own-id-42" } })
    const answer = await h.webhookApplied(theirs, { instance: "second", key: SECOND_KEY })
    expect([answer.status, answer.applied.state]).toEqual([200, "applied"])
    // kept for the second account, flagged, never lost; the first account's pay-in untouched
    const rows = await sql(`select provider_id, status, flag_kinds from payin_transaction where service_id = ? order by provider_id`, [tx.id])
    expect(rows.rows).toEqual([
      expect.objectContaining({ provider_id: "pp_payin_default", status: "active" }),
      // paid with no session of this store: flagged for the merchant (unknown, and stray money)
      expect.objectContaining({ provider_id: "pp_payin_second", status: "closed", flag_kinds: ["stray_payment", "unknown_payin"] }),
    ])
    expect((await order(orderId)).payment_status).toBe("awaiting")
    expect(await paymentsOf(session.id)).toHaveLength(0)
  })

  it("an old dispute callback delivered after the close: the service is asked, and its current state applied (nothing moves back)", async () => {
    const { tx, orderId, session } = await placedOrder()
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
    await deliver()
    expect(await row({ session_id: session.id })).toMatchObject({ status: "closed", fiat_amount: tx.fiatAmount })
    // a dispute callback from before the close (another amount), delivered late and signed
    const stale = JSON.stringify({ ...sandbox.transaction(tx.id), status: "dispute", fiatAmount: "1700.00" })
    expect((await postWebhook("default", stale, KEY)).status).toBe(200)
    const after = await row({ session_id: session.id })
    expect(after).toMatchObject({ status: "closed", fiat_amount: tx.fiatAmount })
    expect(after.flags?.dispute_after_payment).toBeUndefined()
    expect((await order(orderId)).payment_status).toBe("captured")
    // a real dispute after payment (the service says so) is still recorded and flagged
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/dispute`)
    await deliver()
    expect((await row({ session_id: session.id })).flags.dispute_after_payment).toBeDefined()
  })

  /** Pays `txId` at the service while a NOT VALID check constraint on `table` fails its booking (a real database failure). */
  const payWhileBlocked = async (txId: string, table: string, check: string, body?: Record<string, unknown>) => {
    await sql(`alter table ${table} add constraint payin_test_block check (${check}) not valid`)
    try {
      expect((await control(sandbox, "POST", `/_sandbox/transactions/${txId}/pay`, body)).status).toBe(200)
      await deliver()
    } finally {
      await sql(`alter table ${table} drop constraint payin_test_block`)
    }
  }

  it("soak seed 1: a dispute after payment, recalculated and closed again before its callbacks are applied: recorded and flagged as it came, the capture stays", async () => {
    const { tx, orderId, session } = await placedOrder()
    sandbox.updateMerchant({ webhookUrl: null })
    // the service's callbacks, in its order, delivered after all four moves (a late worker, delayed webhooks)
    const bodies: string[] = []
    for (const [move, body] of [["pay"], ["dispute"], ["recalculate", { fiatAmount: "1389.10" }], ["close"]] as const) {
      bodies.push(JSON.stringify((await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/${move}`, body)).body))
    }
    for (const body of bodies) expect((await h.webhookApplied(body)).applied.state).toBe("applied")
    const after = await row({ session_id: session.id })
    expect(after).toMatchObject({ status: "closed", fiat_amount: "1389.10" })
    expect(after.flags.dispute_after_payment).toBeDefined()
    expect(after.flags.underpayment).toMatchObject({ assigned_amount: tx.fiatAmount, received_amount: "1389.10" })
    const history = (await api.get(`/admin/payin/transactions/${after.id}`, admin)).data.history
    expect(history.map((x: any) => x.to_status)).toEqual(expect.arrayContaining(["closed", "dispute", "re_calculation"]))
    expect(events.map((e) => e.name)).toEqual(expect.arrayContaining([PAYIN_EVENTS.DISPUTE_OPENED, PAYIN_EVENTS.AMOUNT_RECALCULATED]))
    // Medusa's records: what was captured at the first close stays, once (no uncapture)
    const [payment, ...others] = await paymentsOf(session.id)
    expect(others).toHaveLength(0)
    expect(payment.captures.map((c: any) => Number(c.amount))).toEqual([Number(tx.fiatAmount)])
    expect((await order(orderId)).payment_status).toBe("captured")
  })

  it("soak seed 1 (new kinds): paid and captured, then closed again for less before the dispute's callbacks: flagged and in the history at once, the late dispute callbacks change nothing, the capture stays", async () => {
    const { tx, orderId, session } = await placedOrder()
    expect((await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)).status).toBe(200)
    await deliver()
    expect((await order(orderId)).payment_status).toBe("captured")
    sandbox.updateMerchant({ webhookUrl: null })
    const bodies: Record<string, string> = {}
    for (const [move, body] of [["dispute"], ["recalculate", { fiatAmount: "1533.79" }], ["close"]] as const) {
      bodies[move] = JSON.stringify((await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/${move}`, body)).body)
    }
    // the second close first (the worker was down, the callbacks shuffled), then the dispute's own
    expect((await h.webhookApplied(bodies.close)).applied.state).toBe("applied")
    const closedAgain = await row({ session_id: session.id })
    expect(closedAgain).toMatchObject({ status: "closed", fiat_amount: "1533.79" })
    expect(closedAgain.flags.dispute_after_payment).toMatchObject({ status: "closed", captured: true })
    expect(closedAgain.flags.underpayment).toMatchObject({ assigned_amount: tx.fiatAmount, received_amount: "1533.79" })
    const history = (await api.get(`/admin/payin/transactions/${closedAgain.id}`, admin)).data.history
    expect(history.filter((x: any) => x.from_status === "closed" && x.to_status === "closed" && x.source === "webhook")).toHaveLength(1)
    for (const move of ["dispute", "recalculate"]) expect((await h.webhookApplied(bodies[move])).applied.state).toBe("applied")
    const after = await row({ session_id: session.id })
    expect(after).toMatchObject({ status: "closed", fiat_amount: "1533.79" })
    expect(Object.keys(after.flags).sort()).toEqual(Object.keys(closedAgain.flags).sort())
    // Medusa's records: the first close's capture stays, once
    const [payment, ...others] = await paymentsOf(session.id)
    expect(others).toHaveLength(0)
    expect(payment.captures.map((c: any) => Number(c.amount))).toEqual([Number(tx.fiatAmount)])
    expect((await order(orderId)).payment_status).toBe("captured")
  })

  it("soak seed 1: a capture's order transaction written twice (a capture by hand raced the webhook's booking) is removed at payment.captured; the order counts the capture once", async () => {
    const { tx, orderId, session } = await placedOrder()
    expect((await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)).status).toBe(200)
    await deliver()
    const [payment] = await h.paymentsOf(session.id, ["id", "captures.id", "captures.amount"])
    expect(payment.captures).toHaveLength(1)
    const orders = getContainer().resolve(Modules.ORDER) as any
    const transactions = async () => (await orders.listOrderTransactions({ order_id: orderId })) as { amount: unknown; reference_id: string }[]
    expect((await transactions()).map((t) => t.reference_id)).toEqual([payment.captures[0].id])
    // what the second of two capture workflows at once writes: Medusa's addOrderTransactionStep
    // checks for the capture's transaction, then inserts it
    await orders.addOrderTransactions({ order_id: orderId, amount: 1790, currency_code: "rub", reference: "capture", reference_id: payment.captures[0].id })
    expect(Number((await h.order(orderId, "id,summary")).summary.paid_total)).toBe(3580)
    // Medusa emits payment.captured after the insert, as its capture workflow's last step
    await (getContainer().resolve(Modules.EVENT_BUS) as any).emit({ name: "payment.captured", data: { id: payment.id } })
    await eventually("one order transaction per capture", async () => (await transactions()).length === 1, 30_000, 200)
    expect((await transactions()).map((t) => [t.reference_id, Number(t.amount)])).toEqual([[payment.captures[0].id, 1790]])
    const after = await h.order(orderId, "id,payment_status,summary")
    expect([after.payment_status, Number(after.summary.paid_total)]).toEqual(["captured", 1790])
  })

  it("soak seed 1 (30 minutes): a paid pay-in left on a session Medusa never saved, its order link lost with order.placed, is captured for the order its payment collection belongs to", async () => {
    const { tx, orderId, session } = await placedOrder()
    const [before] = await h.ledger.rows({ session_id: session.id })
    // a late payment's new session whose creation Medusa rolled back after the provider took it
    // (a server killed), on a row order.placed never linked (its event lost in a Redis restart)
    await sql(`update payin_transaction set session_id = 'payses_never_saved', order_id = null where id = ?`, [before.id])
    expect((await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)).status).toBe(200)
    await deliver()
    const after = await row({ id: before.id })
    expect(after.flags?.stray_payment).toBeUndefined()
    expect(after.session_id).not.toBe("payses_never_saved")
    const [payment] = await paymentsOf(after.session_id)
    expect(payment.captures.map((c: any) => Number(c.amount))).toEqual([1790])
    const placed = await order(orderId)
    expect(placed.payment_status).toBe("captured")
    expect(placed.transactions.reduce((sum: number, t: any) => sum + Number(t.amount), 0)).toBe(1790)
  })

  it("soak seed 1 (14 shoppers): a booking waits while a completion of the cart holds Medusa's cart lock (it may still roll the order back), then books for the order it left", async () => {
    const { tx, orderId, session, cartId } = await placedOrder()
    const placedRow = await row({ session_id: session.id })
    // as while the completion runs: order.placed (emitted once it ended) has not linked the pay-in yet
    await sql("update payin_transaction set order_id = null, cart_id = null where id = ?", [placedRow.id])
    // a completion of the cart under way: Medusa's completeCartWorkflow holds the key <cart id>
    // while it links the order and authorizes; before, the booking authorized the session under it,
    // the completion failed on it, deleted its order and the session: money captured for no order
    const locking = getContainer().resolve(Modules.LOCKING) as any
    await locking.acquire(cartId, { ownerId: "completion-under-way", expire: 120 })
    expect((await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)).status).toBe(200)
    await deliver()
    const waiting = await row({ session_id: session.id })
    expect([waiting.status, waiting.effect_pending, waiting.captured_at]).toEqual(["closed", "capture", null])
    expect(waiting.last_error).toMatch(new RegExp(`completion of cart ${cartId} still holds its lock`))
    expect(await paymentsOf(session.id)).toHaveLength(0)
    await locking.release(cartId, { ownerId: "completion-under-way" })
    await sql("update payin_transaction set next_effect_at = now() - interval '1 second' where id = ?", [waiting.id])
    expect(await reconcilePayins(getContainer(), { olderThanSeconds: 0 })).toMatchObject({ effectsDone: 1 })
    const [payment, ...others] = await paymentsOf(session.id)
    expect(others).toHaveLength(0)
    expect(payment.captures.map((c: any) => Number(c.amount))).toEqual([Number(tx.fiatAmount)])
    expect((await order(orderId)).payment_status).toBe("captured")
  })

  it("soak seed 1 (30 minutes, third run): a capture delayed past a dispute and a recalculation books what arrived at the close, not the recalculated amount", async () => {
    const { tx, orderId, session } = await placedOrder()
    // the booking of the close fails (a real database failure): its capture waits for its retry
    await payWhileBlocked(tx.id, "payment", "false")
    // meanwhile the service disputed the payment and recalculated it (not closed again)
    for (const [move, body] of [["dispute"], ["recalculate", { fiatAmount: "1249.27" }]] as const) {
      expect((await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/${move}`, body)).status).toBe(200)
    }
    await deliver()
    const waiting = await row({ session_id: session.id })
    expect(waiting).toMatchObject({ status: "re_calculation", fiat_amount: "1249.27", effect_pending: "capture", captured_at: null })
    await sql("update payin_transaction set next_effect_at = now() - interval '1 second' where id = ?", [waiting.id])
    await reconcilePayins(getContainer(), { olderThanSeconds: 0 })
    expect(await row({ id: waiting.id })).toMatchObject({ effect_pending: null, captured_at: expect.anything() })
    // Medusa's records: what the service credited at the close, once
    const [payment, ...others] = await paymentsOf(session.id)
    expect(others).toHaveLength(0)
    expect(payment.captures.map((c: any) => Number(c.amount))).toEqual([Number(tx.fiatAmount)])
    const placed = await order(orderId)
    expect(placed.payment_status).toBe("captured")
    expect(placed.transactions.reduce((sum: number, t: any) => sum + Number(t.amount), 0)).toBe(Number(tx.fiatAmount))
  })

  it("soak seed 1 (30 minutes, fourth run): a capture Medusa recorded whose payment collection was never updated (cut between the two) is counted by the collection on the booking's retry: the order says partially captured", async () => {
    const { tx, orderId, session } = await placedOrder()
    // Medusa's capturePayment commits the capture, then updates the collection apart: that update fails
    await payWhileBlocked(tx.id, "payment_collection", "captured_amount is null or captured_amount = 0", { fiatAmount: "1221.91" })
    const cut = await row({ session_id: session.id })
    expect(cut).toMatchObject({ status: "closed", effect_pending: "capture", captured_at: null })
    expect((await paymentsOf(session.id))[0].captures.map((c: any) => Number(c.amount))).toEqual([1221.91])
    expect((await order(orderId)).payment_status).toBe("authorized")
    await sql("update payin_transaction set next_effect_at = now() - interval '1 second' where id = ?", [cut.id])
    expect(await reconcilePayins(getContainer(), { olderThanSeconds: 0 })).toMatchObject({ effectsDone: 1 })
    // Medusa's records agree: one capture, its order transaction, the collection and the order's status
    const [payment, ...others] = await paymentsOf(session.id)
    expect(others).toHaveLength(0)
    expect(payment.captures.map((c: any) => Number(c.amount))).toEqual([1221.91])
    const placed = await order(orderId)
    expect(placed.payment_status).toBe("partially_captured")
    expect(placed.transactions.reduce((sum: number, t: any) => sum + Number(t.amount), 0)).toBe(1221.91)
    const { data: collections } = await getContainer().resolve("query").graph({ entity: "payment_collection", fields: ["captured_amount", "status"], filters: { id: payment.payment_collection_id ?? cut.payment_collection_id } })
    expect(Number(collections[0].captured_amount)).toBe(1221.91)
  })

  it("soak seed 1 (30 minutes, third run): a pay-first booking cut after Medusa captured and before the order places the order on its retry, never flagged paid_without_order", async () => {
    const { cartId, session, payin: tx } = await h.cartWithPayin()
    await payWhileBlocked(tx.id, "payment", "false")
    const paid = await row({ session_id: session.id })
    expect(paid).toMatchObject({ status: "closed", effect_pending: "capture", captured_at: null })
    // what processPaymentWorkflow had done when its worker was killed: the session authorized and
    // captured in full (the provider answers captured), the cart not completed yet
    await (getContainer().resolve(Modules.PAYMENT) as any).authorizePaymentSession(session.id, {})
    const [captured] = await paymentsOf(session.id)
    expect(captured.captures.map((c: any) => Number(c.amount))).toEqual([Number(tx.fiatAmount)])
    await sql("update payin_transaction set next_effect_at = now() - interval '1 second' where id = ?", [paid.id])
    expect(await reconcilePayins(getContainer(), { olderThanSeconds: 0 })).toMatchObject({ effectsDone: 1 })
    const after = await row({ id: paid.id })
    expect(after.flags?.paid_without_order).toBeUndefined()
    expect(after).toMatchObject({ effect_pending: null, order_id: expect.stringMatching(/^order_/) })
    const placed = await order(after.order_id)
    expect(placed.payment_status).toBe("captured")
    expect(placed.transactions.reduce((sum: number, t: any) => sum + Number(t.amount), 0)).toBe(Number(tx.fiatAmount))
    // the shopper's own completion finds the order placed
    const completed = await shop.complete(cartId)
    expect([completed.data.type, completed.data.order?.id]).toEqual(["order", after.order_id])
    const [payment, ...others] = await paymentsOf(session.id)
    expect(others).toHaveLength(0)
    expect(payment.captures.map((c: any) => Number(c.amount))).toEqual([Number(tx.fiatAmount)])
  })

  it("defect 2: a closed pay-in with another amount than assigned is booked as received and flagged, with no re_calculation seen", async () => {
    const under = await placedOrder()
    const over = await placedOrder()
    const assigned = (await row({ session_id: under.session.id })).assigned_amount
    expect(assigned).toBe(under.tx.fiatAmount)
    // the dispute and recalculation callbacks are lost: only "closed" with the new amount arrives
    sandbox.updateMerchant({ webhookUrl: null })
    const less = (Number(assigned) - 100).toFixed(2)
    const more = (Number(assigned) + 100).toFixed(2)
    for (const [t, amount] of [[under.tx, less], [over.tx, more]] as const) {
      await control(sandbox, "POST", `/_sandbox/transactions/${t.id}/dispute`)
      await control(sandbox, "POST", `/_sandbox/transactions/${t.id}/recalculate`, { fiatAmount: amount })
    }
    sandbox.updateMerchant({ webhookUrl: `${api.defaults.baseURL}/hooks/payin/default` })
    for (const t of [under.tx, over.tx]) await control(sandbox, "POST", `/_sandbox/transactions/${t.id}/close`)
    await deliver()

    const underRow = await row({ session_id: under.session.id })
    expect(underRow).toMatchObject({ status: "closed", fiat_amount: less })
    expect(underRow.flags.underpayment).toMatchObject({ assigned_amount: assigned, received_amount: less })
    const underOrder = await order(under.orderId)
    // Medusa books what was received (the smaller amount)
    expect(underOrder.transactions.map((t: any) => Number(t.amount))).toEqual([Number(less)])
    const overRow = await row({ session_id: over.session.id })
    expect(overRow.flags.overpayment).toMatchObject({ assigned_amount: assigned, received_amount: more })
    // it cannot capture more than was authorised: the session amount
    expect((await order(over.orderId)).transactions.map((t: any) => Number(t.amount))).toEqual([Number(assigned)])
    expect(events.filter((e) => e.name === PAYIN_EVENTS.PAYMENT_FLAGGED).map((e) => e.data.flag).sort()).toEqual([
      "overpayment",
      "underpayment",
    ])
  })

  it("defect 2: a pay-in created with another amount or currency than requested is refused and flagged", async () => {
    for (const override of [{ fiatAmount: "1.00" }, { fiatCurrency: "USD" }]) {
      await control(sandbox, "POST", "/_sandbox/next-payin", override)
      const cartId = await shop.cart()
      const refused = await shop.sessionError(cartId, "pp_payin_default")
      expect(refused.status).toBe(400)
      expect(refused.data.message).toMatch(/different amount or currency/)
      const [created] = sandbox.transactions().slice(-1)
      const flagged = await row({ service_id: created.id })
      expect(flagged.flags.created_mismatch.reason).toMatch(override.fiatAmount ? /assigned 1\.00/ : /in USD/)
    }
  })

  it("defect 2: fiatAmount must be a 2-decimal string (a malformed callback is refused and changes nothing)", async () => {
    const { tx, session } = await placedOrder()
    const body = JSON.stringify({ ...sandbox.transaction(tx.id), status: "closed", fiatAmount: "1790.5" })
    expect((await postWebhook("default", body, KEY)).status).toBe(400)
    expect(await row({ session_id: session.id })).toMatchObject({ status: "active" })
  })

  it("defect 3: a capture that failed after the status was recorded is retried by reconciliation until done", async () => {
    const { tx, orderId, session } = await placedOrder()
    // a real database failure while Medusa creates the payment
    await sql(`alter table payment add constraint payin_test_block check (false) not valid`)
    try {
      await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
      await deliver()
      expect(await row({ session_id: session.id })).toMatchObject({ status: "closed", effect_pending: "capture", effect_attempts: 1 })
      expect((await order(orderId)).payment_status).toBe("awaiting")
    } finally {
      await sql(`alter table payment drop constraint payin_test_block`)
    }
    // its retry is due after a backoff (30 s the first time): let that time pass
    await sql("update payin_transaction set next_effect_at = now() where session_id = ?", [session.id])
    const report = await reconcilePayins(getContainer(), { olderThanSeconds: 0 })
    expect(report).toMatchObject({ effectsRetried: 1, effectsDone: 1 })
    expect(await row({ session_id: session.id })).toMatchObject({ effect_pending: null })
    expect((await order(orderId)).payment_status).toBe("captured")
    expect(await paymentsOf(session.id)).toHaveLength(1)
  })

  it("defect 3: after the bounded attempts it is flagged capture_failed, and Reconcile now finishes it", async () => {
    await api.post("/admin/payin/settings", { effectRetryLimit: 1 }, admin)
    const { tx, orderId, session } = await placedOrder()
    await sql(`alter table payment add constraint payin_test_block check (false) not valid`)
    try {
      await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
      await deliver()
    } finally {
      await sql(`alter table payment drop constraint payin_test_block`)
    }
    const failed = await row({ session_id: session.id })
    expect(failed.flags.capture_failed).toMatchObject({ attempts: 1 })
    expect(events.some((e) => e.name === PAYIN_EVENTS.PAYMENT_FLAGGED && e.data.flag === "capture_failed")).toBe(true)
    // not due yet (the backoff after the failure): reconciliation retries it later, at most hourly…
    expect(await reconcilePayins(getContainer(), { olderThanSeconds: 0 })).toMatchObject({ effectsRetried: 0 })
    expect((await order(orderId)).payment_status).toBe("awaiting")
    // …and "Reconcile now" retries it at once
    const { data } = await api.post(`/admin/payin/transactions/${failed.id}/reconcile`, {}, admin)
    expect(data.result).toMatchObject({ effects: ["captured"], effectPending: false })
    expect((await order(orderId)).payment_status).toBe("captured")
    await api.post("/admin/payin/settings", { effectRetryLimit: null }, admin)
  })

  it("defect 4: paid before completion and completion fails: flagged paid_without_order, no refund recorded, no new pay-in", async () => {
    await api.post("/admin/payin/settings/default", { manualRefunds: true }, admin)
    const cartId = await shop.cart()
    const session = await shop.session(cartId, "pp_payin_default")
    const [tx] = payinsOfSession(sandbox, session.id)
    await sql(`alter table "order" add constraint payin_test_block check (false) not valid`)
    try {
      await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
      await deliver()
    } finally {
      await sql(`alter table "order" drop constraint payin_test_block`)
    }
    const paid = await row({ session_id: session.id })
    expect(paid.flags.paid_without_order).toBeDefined()
    expect(paid.refunds).toBeNull()
    expect(events.some((e) => e.name === PAYIN_EVENTS.PAYMENT_FLAGGED && e.data.flag === "paid_without_order")).toBe(true)
    for (const payment of await paymentsOf(session.id)) expect(payment.refunds ?? []).toHaveLength(0)
    const again = await shop.sessionError(cartId, "pp_payin_default")
    expect(again.status).toBe(400)
    expect(again.data.message).toMatch(/already paid/)
    expect(payinsOfSession(sandbox, session.id)).toHaveLength(1)
    expect(sandbox.transactions()).toHaveLength(1)
    await api.post("/admin/payin/settings/default", { manualRefunds: null }, admin)
  })

  it("defect 5: a dispute after payment is recorded, emitted and flagged; the capture stays and the shopper sees paid", async () => {
    const { tx, orderId, session, cartId } = await placedOrder()
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
    await deliver()
    expect((await order(orderId)).payment_status).toBe("captured")
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/dispute`)
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/recalculate`, { fiatAmount: "10.00" })
    await deliver()
    const disputed = await row({ session_id: session.id })
    expect(disputed).toMatchObject({ status: "re_calculation", fiat_amount: "10.00" })
    expect(disputed.flags.dispute_after_payment).toBeDefined()
    expect(disputed.flags.underpayment).toMatchObject({ received_amount: "10.00" })
    expect(events.map((e) => e.name)).toEqual(
      expect.arrayContaining([PAYIN_EVENTS.DISPUTE_OPENED, PAYIN_EVENTS.AMOUNT_RECALCULATED, PAYIN_EVENTS.PAYMENT_FLAGGED])
    )
    const history = (await api.get(`/admin/payin/transactions/${disputed.id}`, admin)).data.history
    expect(history.map((h: any) => h.to_status)).toEqual(expect.arrayContaining(["closed", "dispute", "re_calculation"]))
    expect((await order(orderId)).payment_status).toBe("captured")
    const status = await api.get(`/store/payin/status?cart_id=${cartId}`, shop.headers)
    expect(status.data.payin).toMatchObject({ state: "paid", final: true })
    // closed again: no second capture
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/close`)
    await deliver()
    expect(await row({ session_id: session.id })).toMatchObject({ status: "closed", effect_pending: null })
    expect(await paymentsOf(session.id)).toHaveLength(1)
    expect((await order(orderId)).transactions).toHaveLength(1)
  })

  it("defect 6: a stray payment keeps the order from being canceled by the expiry of its newer pay-in", async () => {
    const cartId = await shop.cart()
    const first = await shop.session(cartId, "pp_payin_default")
    const [old] = payinsOfSession(sandbox, first.id)
    await shop.addItem(cartId) // the cart changed: Medusa deletes the session, the storefront makes a new one
    const current = await shop.session(cartId, "pp_payin_default")
    const orderId = (await shop.complete(cartId)).data.order.id
    await control(sandbox, "POST", `/_sandbox/transactions/${old.id}/pay`) // the shopper paid the old requisites
    await deliver()
    await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 }) // the current one expires unpaid
    await deliver()
    expect((await order(orderId)).status).not.toBe("canceled")
    const stray = await row({ session_id: first.id })
    expect(stray.flags.stray_payment).toMatchObject({ payment_collection_id: stray.payment_collection_id, cart_id: cartId, order_id: orderId })
    const expired = await row({ session_id: current.id })
    expect(expired.status).toBe("canceled")
    expect(expired.flags.paid_elsewhere).toMatchObject({ paid_payin_id: stray.id, order_id: orderId })
    const strayEvent = events.find((e) => e.data.flag === "stray_payment")
    expect(strayEvent?.data).toMatchObject({ payment_collection_id: stray.payment_collection_id })
  })

  it("defect 7: a refused or older callback changes no data of the pay-in", async () => {
    const { tx, session } = await placedOrder()
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
    await deliver()
    const before = await row({ session_id: session.id })
    const stale = JSON.stringify({
      ...sandbox.transaction(tx.id),
      status: "active",
      fiatAmount: "1.00",
      bank: "forged-bank",
      requisite: { ...tx.requisite, requisites: "0000" },
    })
    expect((await postWebhook("default", stale, KEY)).status).toBe(200)
    const after = await row({ session_id: session.id })
    for (const column of ["status", "fiat_amount", "bank", "requisite", "service_data", "assigned_amount"]) {
      expect([column, after[column]]).toEqual([column, before[column]])
    }
  })

  it("defect 8: the write-only key only goes to the saved base URL; https required; stale revisions get 409", async () => {
    const test = (body: unknown) => api.post("/admin/payin/settings/default/test-connection", body, admin).catch((e: any) => e.response)
    const other = await test({ baseUrl: `${second.url}` })
    expect(other.status).toBe(400)
    expect(other.data.fields?.[0]?.path ?? JSON.stringify(other.data)).toMatch(/apiKey/)
    expect((await test({ baseUrl: second.url, apiKey: SECOND_KEY })).data.ok).toBe(true)
    expect((await test({})).data.ok).toBe(true)
    const insecure = await test({ baseUrl: "http://payments.example.com", apiKey: "some-key-12345678" })
    expect(insecure.status).toBe(400)
    const save = (body: unknown) => api.post("/admin/payin/settings/default", body, admin).catch((e: any) => e.response)
    expect((await save({ baseUrl: "http://payments.example.com" })).status).toBe(400)
    const current = (await api.get("/admin/payin/settings/default", admin)).data
    expect((await save({ paymentWindowSeconds: 600, revision: current.revision })).status).toBe(200)
    const stale = await save({ paymentWindowSeconds: 700, revision: current.revision })
    expect(stale.status).toBe(409)
    expect((await api.get("/admin/payin/settings/default", admin)).data.values.paymentWindowSeconds).toBe(600)
    expect((await save({ paymentWindowSeconds: null })).status).toBe(200)
  })

  it("a lock left behind by a killed process is taken over once it expired (locking-postgres never hands it over)", async () => {
    const { tx, orderId, session } = await placedOrder()
    const ledgerId = (await row({ session_id: session.id })).id
    await sql(`insert into locking (id, owner_id, expiration) values (?, 'payin-dead-process', now() - interval '1 second')`, [
      `payin:${ledgerId}`,
    ])
    sandbox.updateMerchant({ webhookUrl: null }) // the callback below is the one that applies
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
    const body = JSON.stringify(sandbox.transaction(tx.id))
    const answer = await h.webhookApplied(body, { instance: "default", key: KEY })
    expect([answer.status, answer.applied.effects]).toEqual([200, ["captured"]])
    expect((await order(orderId)).payment_status).toBe("captured")
  })

  describe("the plugin's own work per booking (issue 40)", () => {
    const closedOf = (txId: string) => ({ ...sandbox.transaction(txId), status: "closed" }) as any

    it(`a closed webhook of a placed order costs the plugin at most ${PLUGIN_BOOKING_BUDGET.apply} SQL statements of its own to apply (locking-postgres), Medusa's workflow books it`, async () => {
      const { tx, orderId, session } = await placedOrder()
      const container = getContainer()
      expect(await lockingProbed(container)).toBe(true) // probed once per process, not per booking
      const counted = await countStatements(container, () =>
        applyPayinEvent(container, { instanceId: "default", transaction: closedOf(tx.id), source: "webhook" })
      )
      expect(counted.result).toMatchObject({ status: "closed", changed: true, effects: ["captured"], effectPending: false })
      const own = statementLines(counted.statements, "plugin")
      expect({ within: counted.plugin <= PLUGIN_BOOKING_BUDGET.apply, own }).toMatchObject({ within: true })
      // the rest is Medusa's booking, captured once for the order's total (Medusa's own records)
      expect(counted.medusa).toBeGreaterThan(counted.plugin)
      const payments = await paymentsOf(session.id)
      expect(payments).toHaveLength(1)
      expect(payments[0].captures.map((c: any) => Number(c.amount))).toEqual([Number(tx.fiatAmount)])
      expect((await order(orderId)).payment_status).toBe("captured")
      expect(await row({ session_id: session.id })).toMatchObject({ status: "closed", effect_pending: null, captured_at: expect.anything() })
    })

    it("the one-statement status move applies only to the row as read: a row another booking moved meanwhile takes the row-locked path", async () => {
      const { tx, session } = await placedOrder()
      const ledger = payin().ledger
      const [seen] = await ledger.withServiceId(tx.id)
      const closed = closedOf(tx.id)
      // another process books the same callback between this one's read and its write
      const other = await ledger.recordSeenStatus(seen, closed, "webhook", () => true)
      expect([other.transition.changed, Boolean(other.claimed)]).toEqual([true, true])
      const late = await ledger.recordSeenStatus(seen, closed, "webhook", () => true)
      // nothing moved twice: no second history row, no second claim of the capture
      expect([late.transition.changed, late.claimed]).toEqual([false, null])
      const history = await sql("select to_status from payin_status_change where transaction_id = ? and to_status = 'closed'", [seen.id])
      expect(history.rows).toHaveLength(1)
      expect(Number((await row({ session_id: session.id })).effect_fence)).toBe(Number(other.claimed.effect_fence))
    })
  })

  it("a key rotated by another instance is used at once, however fresh this instance's copy of the settings", async () => {
    const cartId = await shop.cart()
    await shop.session(cartId, "pp_payin_default") // this instance has just read its settings
    // another instance saves a new key from its admin: the table changes, this instance's cache does not
    const ROTATED = "money-path-rotated-key-XYZ123"
    const encrypted = payin().settings.secretBox.encrypt(ROTATED, "provider:default")
    await sql(
      `insert into payin_setting (id, scope, values, revision, api_key_encrypted, api_key_last4, api_key_updated_at)
       values ('payinset_rotated', 'provider:default', '{}'::jsonb, 1, ?, 'Z123', now())`,
      [encrypted]
    )
    sandbox.updateMerchant({ apiKey: ROTATED })
    // another cart (the same cart's live pay-in would be shown again, with no request to the service)
    const session = await shop.session(await shop.cart(), "pp_payin_default")
    expect(payinsOfSession(sandbox, session.id)).toEqual([expect.objectContaining({ status: "active" })])
    await sql(`delete from payin_setting where scope = 'provider:default'`)
    await h.reloadSettings()
  })

  it("defect 9: webhook answers, payer context only for pay-in sessions, no crypto data in sessions, no growing caches", async () => {
    const { tx } = await placedOrder()
    const body = JSON.stringify(sandbox.transaction(tx.id))
    expect((await postWebhook("nope", body, KEY)).status).toBe(404)
    expect((await postWebhook("default", body, KEY, "")).status).toBe(400)
    expect((await postWebhook("default", body, KEY, "zz")).status).toBe(400)
    expect((await postWebhook("default", body, KEY, "ab".repeat(31))).status).toBe(400)
    expect((await postWebhook("default", body, KEY, sign(body, "wrong-key-123456"))).status).toBe(401)
    // a stored key that cannot be decrypted: the instance has no usable key → 401 whatever the headers
    await sql(
      `insert into payin_setting (id, scope, values, revision, api_key_encrypted, api_key_last4)
       values ('payinset_broken', 'provider:second', '{}'::jsonb, 1, 'v1.x.y.z.w', 'xxxx')
       on conflict (scope) where deleted_at is null do update set api_key_encrypted = 'v1.x.y.z.w', revision = payin_setting.revision + 1`
    )
    await h.reloadSettings()
    expect((await postWebhook("second", body, SECOND_KEY)).status).toBe(401)
    await sql(`delete from payin_setting where scope = 'provider:second'`)
    await h.reloadSettings()

    // duplicates: acknowledged from memory, nothing left in flight
    const closed = await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
    await deliver()
    const cacheBefore = h.ledger.inbox.memory().appliedCached
    const dup = JSON.stringify(closed.body)
    for (let i = 0; i < 20; i++) expect((await postWebhook("default", dup, KEY)).status).toBe(200)
    expect(h.ledger.inbox.memory().inFlight).toBe(0)
    // booked by the drain, not by the route: the first duplicate finds it applied in the inbox and is remembered, the rest answer from memory
    expect(h.ledger.inbox.memory().appliedCached).toBe(cacheBefore + 1)

    // session data: payer context only for pay-in providers, and no crypto amount or rate
    const cartId = await shop.cart()
    const system = await shop.session(cartId, "pp_system_default")
    expect(system.data ?? {}).not.toHaveProperty("payin_client")
    const mine = await shop.session(cartId, "pp_payin_default")
    expect(mine.data).not.toHaveProperty("crypto_amount")
    expect(mine.data).not.toHaveProperty("currency_rate")
    expect(mine.data).not.toHaveProperty("payin_client")
    expect(JSON.stringify(mine.data)).not.toContain(KEY)
  })
})
