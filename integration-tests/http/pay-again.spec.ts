// Pay again (issue 26): an order whose pay-in ended unpaid waits for its grace period instead of
// being canceled, and its shopper gets new payment details for the same order through
// POST /store/payin/pay-again. Real Medusa, real PostgreSQL, the sandbox over HTTP; every money
// figure is read from Medusa's own records (the order's payment status, its payments' captures).
import { Modules } from "@medusajs/framework/utils"
import { PAY_AGAIN_LOCK } from "../../src/api/store/payin/pay-again/route"
import { applyPendingEffect } from "../../src/money-path/apply"
import { tryLock } from "../../src/money-path/lock"
import { reconcilePayins } from "../../src/money-path/reconcile"
import type { RunningSandbox } from "../../src/sandbox"
import { PAYIN_EVENTS, storeSpec } from "../support/harness"
import { eventually } from "../support/medusa-process"
import { control } from "../support/sandbox"
import { Storefront, foreignKeyHeaders } from "../support/storefront"

jest.setTimeout(240_000)
process.env.PAYIN_ENCRYPTION_KEY ??= "pay-again-encryption-secret-0123456789"

const KEY = "pay-again-key-0123456789"

storeSpec({ key: KEY, events: true, reloadSettings: true }, (h) => {
  const { api, getContainer, events, deliver, sql } = h
  let sandbox: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
  beforeEach(() => void ({ sandbox, shop, admin } = h))

  const payAgainOn = (graceHours = 2) => api.post("/admin/payin/settings/default", { payAgain: { enabled: true, graceHours } }, admin)
  const status = (orderId: string) => shop.orderStatus(orderId)
  const payAgain = (body: Record<string, unknown>, headers?: Record<string, string>) => shop.payAgain(body, headers)
  /** Medusa's payments of every session of the order's payment collection, with their captures. */
  const paymentsOfOrder = async (orderId: string) => {
    const query = getContainer().resolve("query") as any
    const { data } = await query.graph({
      entity: "order",
      fields: ["id", "payment_collections.payments.id", "payment_collections.payments.captures.amount", "payment_collections.payments.canceled_at"],
      filters: { id: orderId },
    })
    return (data[0]?.payment_collections ?? []).flatMap((c: any) => c.payments ?? [])
  }
  const capturedTotal = (payments: any[]) => payments.flatMap((p) => p.captures ?? []).reduce((sum: number, c: any) => sum + Number(c.amount), 0)
  /** The order's pay-in rows, oldest first. */
  const rowsOf = async (orderId: string) => (await h.ledger.rows({ order_id: orderId })).sort((a: any, b: any) => +new Date(a.created_at) - +new Date(b.created_at))
  /** The grace period ends now: what the clock would do (the rows' pay_again_until and their deferred effects). */
  const endGrace = async (orderId: string) => {
    await sql(
      `update payin_transaction set pay_again_until = now() - interval '1 second',
         next_effect_at = case when effect_pending is not null then now() - interval '1 second' else next_effect_at end
       where payment_collection_id in (select payment_collection_id from payin_transaction where order_id = ?)`,
      [orderId]
    )
  }
  const expire = async () => {
    await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
    await deliver()
  }
  const orderOf = (orderId: string) => h.order(orderId)
  /** An order whose first pay-in expired and whose shopper got new details: both pay-ins (`first` at the service). */
  const withNewDetails = async () => {
    await payAgainOn(2)
    const { orderId, payin: first } = await h.placedOrder()
    const total = Number((await orderOf(orderId)).total)
    await expire()
    expect((await payAgain({ order_id: orderId })).status).toBe(200)
    const [, second] = await rowsOf(orderId)
    return { orderId, first, second, total }
  }
  /** The shopper pays an expired pay-in after all: the service reports it as a dispute that closes. */
  const payLate = async (serviceId: string) => {
    expect((await control(sandbox, "POST", `/_sandbox/transactions/${serviceId}/dispute`)).status).toBe(200)
    expect((await control(sandbox, "POST", `/_sandbox/transactions/${serviceId}/close`)).status).toBe(200)
    await deliver()
  }

  it("grace on: the order waits, new details are given once for a double click, paid → captured once, never canceled", async () => {
    await payAgainOn(2)
    const { orderId, session, payin: first } = await h.placedOrder()
    const total = Number((await orderOf(orderId)).total)
    await expire()

    // the order waits: not canceled, the first pay-in ended, its order's cancel deferred to the grace end
    expect((await orderOf(orderId)).status).not.toBe("canceled")
    const ended = await h.ledger.row({ session_id: session.id })
    expect(ended).toMatchObject({ status: "canceled", effect_pending: "cancel_order" })
    expect(ended.store_canceled_at).not.toBeNull()
    const until = new Date(ended.pay_again_until).getTime()
    expect(until - Date.now()).toBeGreaterThan(110 * 60_000)
    expect(until - Date.now()).toBeLessThanOrEqual(120 * 60_000)
    expect(new Date(ended.next_effect_at).getTime()).toBe(until)
    const expired = events.filter((e) => e.name === PAYIN_EVENTS.EXPIRED)
    expect(expired).toHaveLength(1)
    expect(expired[0].data).toMatchObject({ order_id: orderId, order_canceled: false, pay_again_until: new Date(until).toISOString() })

    // the status route offers it
    const before = await status(orderId)
    expect(before.payin).toMatchObject({ state: "expired" })
    expect(before.pay_again).toEqual({ until: new Date(until).toISOString() })

    // a double click: two requests at once, one new pay-in
    const [a, b] = await Promise.all([payAgain({ order_id: orderId }), payAgain({ order_id: orderId })])
    expect([a.status, b.status]).toEqual([200, 200])
    const rows = await rowsOf(orderId)
    expect(rows).toHaveLength(2)
    const second = rows[1]
    expect(second.id).not.toBe(ended.id)
    expect(second).toMatchObject({ status: "active", order_id: orderId, payment_collection_id: ended.payment_collection_id })
    for (const answer of [a, b]) {
      expect(answer.data.payin).toMatchObject({ payin_id: second.service_id, state: "awaiting_payment" })
      expect(answer.data.pay_again).toBeNull()
      expect(answer.data.order).toMatchObject({ id: orderId })
    }
    const atService = sandbox.transaction(second.service_id)
    expect(atService).toMatchObject({ status: "active" })
    expect(atService!.id).not.toBe(first.id)

    // a third request while the new one is payable: the same pay-in, none created
    expect((await payAgain({ order_id: orderId })).data.payin.payin_id).toBe(second.service_id)
    expect(await rowsOf(orderId)).toHaveLength(2)

    // paid: Medusa captures the order's payment once, for its total
    await control(sandbox, "POST", `/_sandbox/transactions/${second.service_id}/pay`)
    await deliver()
    const paid = await orderOf(orderId)
    expect(paid.payment_status).toBe("captured")
    expect(paid.status).not.toBe("canceled")
    const payments = await paymentsOfOrder(orderId)
    expect(payments).toHaveLength(1)
    expect(capturedTotal(payments)).toBe(total)

    // the grace period ends later: the deferred effect of the first pay-in cancels nothing
    await endGrace(orderId)
    await reconcilePayins(getContainer(), { olderThanSeconds: 0 })
    expect((await orderOf(orderId)).status).not.toBe("canceled")
    expect((await h.ledger.row({ id: ended.id })).effect_pending).toBeNull()
    expect((await payAgain({ order_id: orderId })).data).toMatchObject({ code: "payin_order_paid" })
    expect(capturedTotal(await paymentsOfOrder(orderId))).toBe(total)
  })

  /** The shopper's tab on the hosted Payment Page: where its button sends them back (the sandbox's 303). */
  const pageButton = async (serviceId: string, button: "paid" | "cancel") => {
    const res = await fetch(`${sandbox.url}/pay/${serviceId}/${button}`, { method: "POST", redirect: "manual" })
    expect(res.status).toBe(303)
    return res.headers.get("location")
  }
  /** The return URLs the service holds for a pay-in (its Payment Page's config). */
  const redirectsAt = (serviceId: string) => {
    const config = sandbox.core.store.get(serviceId)?.paymentPageConfig
    return { success: config?.success_redirect ?? null, failure: config?.error_redirect ?? null }
  }
  /** A placed order whose session carried the storefront's return route, as the kit's payinSessionData sends it. */
  const placedWithReturnUrls = async () => {
    const origin = (await h.payin().settings.providerOptions("default"))!.allowedRedirectOrigins[0]
    const cartId = await shop.cart()
    const back = { success: `${origin}/ru/payin-return?cart_id=${cartId}`, failure: `${origin}/ru/payin-return?cart_id=${cartId}&failed=1` }
    const session = await shop.session(cartId, "pp_payin_default", { success_url: back.success, failure_url: back.failure })
    const orderId = (await shop.complete(cartId)).data.order.id as string
    await eventually("the pay-in linked to its order", async () => (await h.ledger.row({ session_id: session.id }))?.order_id === orderId, 10_000, 50)
    const [first] = await rowsOf(orderId)
    expect(redirectsAt(first.service_id)).toEqual(back)
    return { orderId, back, origin, total: Number((await orderOf(orderId)).total) }
  }

  it("new details lead back to the store as the first did: the earlier pay-in's return URLs, every time", async () => {
    await payAgainOn(2)
    const { orderId, back, total } = await placedWithReturnUrls()
    await expire()
    expect((await payAgain({ order_id: orderId })).status).toBe(200) // no URLs named, as the guide's payinPayAgain sends
    const [, second] = await rowsOf(orderId)
    expect(redirectsAt(second.service_id)).toEqual(back)
    // the ledger keeps them with each pay-in: a later pay again reads them there, whatever became of the sessions
    expect(second.return_urls).toEqual({ success_url: back.success, failure_url: back.failure })

    await expire()
    expect((await payAgain({ order_id: orderId })).status).toBe(200)
    const [, , third] = await rowsOf(orderId)
    expect(redirectsAt(third.service_id)).toEqual(back)
    // the shopper pays on the Payment Page and is sent to the store's return route
    expect(await pageButton(third.service_id, "paid")).toBe(back.success)
    await deliver()
    expect((await orderOf(orderId)).payment_status).toBe("captured")
    expect(capturedTotal(await paymentsOfOrder(orderId))).toBe(total)
  })

  it("soak seed 1 (30 minutes): while another request holds the order, 503 payin_busy with Retry-After (was 500); a killed server's lock expires within the wait", async () => {
    await payAgainOn(2)
    const { orderId } = await h.placedOrder()
    await expire()
    const key = `payin:pay-again:${orderId}`
    // another server answers a pay again of this order and keeps its lock (renewed) past the wait
    expect(await tryLock(getContainer(), key, "payin-other-server", 60)).toBe(true)
    const busy = await payAgain({ order_id: orderId })
    expect(busy.status).toBe(503)
    expect(busy.headers?.["retry-after"]).toBe("5")
    expect(busy.data).toMatchObject({ code: "payin_busy", message: expect.stringMatching(/\(payin_busy\)$/) })
    expect(await rowsOf(orderId)).toHaveLength(1)
    // that server is killed: its lock, no longer renewed, expires before a waiter gives up
    expect(PAY_AGAIN_LOCK.expireSeconds * 1000).toBeLessThan(PAY_AGAIN_LOCK.waitMs)
    expect(await tryLock(getContainer(), key, "payin-other-server", PAY_AGAIN_LOCK.expireSeconds)).toBe(true)
    const answer = await payAgain({ order_id: orderId })
    expect(answer.status).toBe(200)
    const [first, second] = await rowsOf(orderId)
    expect(answer.data.payin.payin_id).toBe(second.service_id)
    expect(second.service_id).not.toBe(first.service_id)
  })

  it("soak seed 1 (50 minutes): Medusa could not delete the order's old session (its database going away): 503 payin_store_unavailable (was 500), and the next try works", async () => {
    await payAgainOn(2)
    const { orderId } = await h.placedOrder()
    await expire()
    // the old session's delete fails in Medusa's own workflow, as on a PostgreSQL restart
    await sql(`create function payin_test_block() returns trigger language plpgsql as $$ begin raise exception 'terminating connection'; end $$`)
    await sql(`create trigger payin_test_block before delete on payment_session for each row execute function payin_test_block()`)
    let refused
    try {
      refused = await payAgain({ order_id: orderId })
    } finally {
      await sql(`drop trigger payin_test_block on payment_session`)
      await sql(`drop function payin_test_block()`)
    }
    expect(refused.status).toBe(503)
    expect(refused.headers?.["retry-after"]).toBe("5")
    expect(refused.data).toMatchObject({ type: "payin_unavailable", code: "payin_store_unavailable" })
    const answer = await payAgain({ order_id: orderId })
    expect(answer.status).toBe(200)
    const rows = await rowsOf(orderId)
    expect(answer.data.payin.payin_id).toBe(rows[rows.length - 1].service_id)
    expect(answer.data.payin.payin_id).not.toBe(rows[0].service_id)
  })

  it("return URLs in the body win, key by key; a stored one whose origin is no longer allowed is left out", async () => {
    await payAgainOn(2)
    const { orderId, back, origin } = await placedWithReturnUrls()
    await expire()
    const mine = `${origin}/ru/order/${orderId}/confirmed`
    expect((await payAgain({ order_id: orderId, success_url: mine })).status).toBe(200)
    const [, second] = await rowsOf(orderId)
    expect(redirectsAt(second.service_id)).toEqual({ success: mine, failure: back.failure })
    expect(await pageButton(second.service_id, "cancel")).toBe(back.failure)
    await deliver()

    // a body URL is checked as any storefront data: another origin is refused before the order's
    // session is touched (a refusal inside Medusa's workflow would replace it with a re-created copy)
    const foreign = await payAgain({ order_id: orderId, failure_url: "https://evil.example/phish" })
    expect(foreign.status).toBe(400)
    expect(foreign.data.message).toMatch(/failure_url .*\(payin_invalid_data\)$/)
    expect(await rowsOf(orderId)).toHaveLength(2)
    expect(sandbox.transactions()).toHaveLength(2)
    expect(await getContainer().resolve(Modules.PAYMENT).listPaymentSessions({ id: [second.session_id] })).toHaveLength(1)

    // the merchant narrowed the allowed origins since: the stored URLs are not sent, nothing is refused
    expect((await api.post("/admin/payin/settings/default", { allowedRedirectOrigins: ["https://shop.example"] }, admin)).status).toBe(200)
    expect((await payAgain({ order_id: orderId })).status).toBe(200)
    const [, , third] = await rowsOf(orderId)
    expect(redirectsAt(third.service_id)).toEqual({ success: null, failure: null })
  })

  it("grace over with nothing paid: new details are refused, then the order is canceled", async () => {
    await payAgainOn(1)
    const { orderId } = await h.placedOrder()
    await expire()
    expect((await orderOf(orderId)).status).not.toBe("canceled")
    await endGrace(orderId)
    const refused = await payAgain({ order_id: orderId })
    expect(refused.status).toBe(409)
    expect(refused.data).toMatchObject({ code: "payin_grace_over" })
    expect(refused.data.message).toMatch(/\(payin_grace_over\)$/)
    expect((await status(orderId)).pay_again).toBeNull()

    await reconcilePayins(getContainer(), { olderThanSeconds: 0 })
    expect((await orderOf(orderId)).status).toBe("canceled")
    const [row] = await rowsOf(orderId)
    expect(row.effect_pending).toBeNull()
    expect((await payAgain({ order_id: orderId })).data).toMatchObject({ code: "payin_order_canceled" })
    // the expiry was announced once, when the order began to wait
    expect(events.filter((e) => e.name === PAYIN_EVENTS.EXPIRED)).toHaveLength(1)
  })

  it("a second pay-in that ends unpaid after the grace period cancels the order at once", async () => {
    await payAgainOn(1)
    const { orderId } = await h.placedOrder()
    await expire()
    expect((await payAgain({ order_id: orderId })).status).toBe(200)
    await endGrace(orderId)
    // the first pay-in's deferred effect: the second is payable, the order waits for it
    await reconcilePayins(getContainer(), { olderThanSeconds: 0 })
    expect((await orderOf(orderId)).status).not.toBe("canceled")
    await expire()
    expect((await orderOf(orderId)).status).toBe("canceled")
  })

  it("a late payment to the first pay-in after the second was paid is flagged, never captured twice", async () => {
    const { orderId, first, second, total } = await withNewDetails()
    await control(sandbox, "POST", `/_sandbox/transactions/${second.service_id}/pay`)
    await deliver()
    expect((await orderOf(orderId)).payment_status).toBe("captured")
    await payLate(first.id) // the shopper also paid the old requisites
    const late = await h.ledger.row({ service_id: first.id })
    expect(late.status).toBe("closed")
    expect(Object.keys(late.flags ?? {})).toEqual(expect.arrayContaining([expect.stringMatching(/^(late_payment|stray_payment)$/)]))
    expect(late.captured_at).toBeNull()
    expect(capturedTotal(await paymentsOfOrder(orderId))).toBe(total)
  })

  it("a late payment to the first pay-in while the order is unpaid is captured; the second, paid too, is flagged", async () => {
    const { orderId, first, second, total } = await withNewDetails()
    await payLate(first.id) // the old requisites after all (their session was replaced by the new one's)
    const paid = await orderOf(orderId)
    expect(paid).toMatchObject({ payment_status: "captured" })
    expect(paid.status).not.toBe("canceled")
    const late = await h.ledger.row({ service_id: first.id })
    expect(late.captured_at).not.toBeNull()
    expect(late.flags ?? {}).not.toHaveProperty("late_payment")
    expect(capturedTotal(await paymentsOfOrder(orderId))).toBe(total)
    // the status shows the pay-in that paid the order, not the newer one still open
    expect((await status(orderId)).payin).toMatchObject({ payin_id: first.id, state: "paid" })

    // then the new details are paid too: flagged, never captured twice
    await control(sandbox, "POST", `/_sandbox/transactions/${second.service_id}/pay`)
    await deliver()
    const twice = await h.ledger.row({ id: second.id })
    expect(twice.flags.stray_payment).toMatchObject({ reason: "paid after the order was paid through another pay-in", order_id: orderId })
    expect(twice.captured_at).toBeNull()
    expect(capturedTotal(await paymentsOfOrder(orderId))).toBe(total)
    expect((await orderOf(orderId)).payment_status).toBe("captured")
  })

  it("the grace period's end waits for the order's captures (one lock per payment collection) and reads the order again before canceling it", async () => {
    expect((await api.post("/admin/payin/settings", { lockTtlSeconds: 5 }, admin)).status).toBe(200) // a held lock is waited for 2.5 s
    try {
      const { orderId, first, second, total } = await withNewDetails()
      const key = `payin:collection:${second.payment_collection_id}`
      const locking = getContainer().resolve(Modules.LOCKING)
      await locking.acquire(key, { ownerId: "pay-again-spec", expire: 300 })
      try {
        // the grace period is over and the new details end unpaid: the order's cancel waits for the
        // collection's lock (held here, as by a capture of another pay-in of the order) and cancels nothing
        await endGrace(orderId)
        await expire()
        expect(await h.ledger.row({ id: second.id })).toMatchObject({ effect_pending: "cancel_order", last_error: expect.stringContaining(key) })
        expect((await orderOf(orderId)).status).not.toBe("canceled")
        // meanwhile the old requisites are paid after all: that capture waits for the lock too
        await payLate(first.id)
        expect(await h.ledger.row({ service_id: first.id })).toMatchObject({ status: "closed", effect_pending: "capture" })
      } finally {
        await locking.release(key, { ownerId: "pay-again-spec" })
      }
      // the capture, then the end, which finds the order paid: kept
      const late = await h.ledger.row({ service_id: first.id })
      expect(await applyPendingEffect(getContainer(), late.id, { force: true })).toMatchObject({ effects: expect.arrayContaining(["captured"]) })
      expect(await applyPendingEffect(getContainer(), second.id, { force: true })).toMatchObject({ effects: ["ended"], pending: false })
      const order = await orderOf(orderId)
      expect(order.status).not.toBe("canceled")
      expect(order.payment_status).toBe("captured")
      expect(capturedTotal(await paymentsOfOrder(orderId))).toBe(total)
    } finally {
      await api.post("/admin/payin/settings", { lockTtlSeconds: null }, admin)
    }
  })

  it("the service refuses the new details: the ended pay-in is not brought back, no other pay-in is opened; the next try works and leads back the same way", async () => {
    await payAgainOn(2)
    const { orderId, back } = await placedWithReturnUrls()
    await expire()
    const [first] = await rowsOf(orderId)
    const atService = sandbox.transactions().length
    sandbox.setFaults([{ route: "POST /payment/trading/pay-in", status: 409, code: "REQUISITES_UNAVAILABLE", count: 1 }])
    const refused = await payAgain({ order_id: orderId })
    expect(refused.data.code).toBe("payin_requisites_unavailable")
    // Medusa deleted the ended pay-in's session, then tried to re-create it from its data
    // (compensation): refused as any copy of an ended pay-in, so nothing is asked of the service
    // and the order's payment collection keeps no session standing for a pay-in nobody can pay
    expect(sandbox.transactions()).toHaveLength(atService)
    const rows = await h.ledger.rows({ payment_collection_id: first.payment_collection_id })
    expect(rows.filter((r: any) => r.service_id).map((r: any) => r.service_id)).toEqual([first.service_id])
    expect(await getContainer().resolve(Modules.PAYMENT).listPaymentSessions({ payment_collection_id: first.payment_collection_id })).toEqual([])
    expect(await h.ledger.row({ id: first.id })).toMatchObject({ session_id: first.session_id, session_deleted_at: expect.anything(), status: first.status })
    expect((await status(orderId)).payin).toMatchObject({ payin_id: first.service_id, state: "expired" })
    expect((await status(orderId)).pay_again).toEqual({ until: expect.any(String) })

    const again = await payAgain({ order_id: orderId })
    expect(again.status).toBe(200)
    expect(again.data.payin.payin_id).not.toBe(first.service_id)
    expect(await rowsOf(orderId)).toHaveLength(2)
    // the first session is gone for good, its return URLs are not: the new details lead back as the first did
    expect(redirectsAt(again.data.payin.payin_id)).toEqual(back)
  })

  it("refuses what it must: off, paid, unknown or another sales channel's order, an invalid body", async () => {
    const { orderId } = await h.placedOrder()
    await expire()
    // off by default: the order was canceled at once, as before
    expect((await orderOf(orderId)).status).toBe("canceled")
    expect((await payAgain({ order_id: orderId })).data).toMatchObject({ code: "payin_order_canceled" })

    await payAgainOn(2)
    const waiting = await h.placedOrder()
    await expire()
    // another sales channel's publishable key: the order does not exist for it
    const foreign = await payAgain({ order_id: waiting.orderId }, await foreignKeyHeaders(getContainer(), shop))
    expect(foreign.status).toBe(404)
    expect((await payAgain({ order_id: "order_unknown" })).status).toBe(404)
    const invalid = await payAgain({ order_id: waiting.orderId, bank: "" })
    expect(invalid.status).toBe(400)
    expect(invalid.data.fields).toEqual([expect.objectContaining({ path: "bank" })])
    expect((await payAgain({ order_id: waiting.orderId, extra: 1 })).status).toBe(400)
    expect(await rowsOf(waiting.orderId)).toHaveLength(1)

    // switched off while the order waits: refused with its own code
    await api.post("/admin/payin/settings/default", { payAgain: { enabled: false } }, admin)
    expect((await payAgain({ order_id: waiting.orderId })).data).toMatchObject({ code: "payin_pay_again_off" })

    // an order paid by another provider
    const cartId = await shop.cart()
    await shop.session(cartId, "pp_system_default")
    const systemOrder = (await shop.complete(cartId)).data.order.id
    expect((await payAgain({ order_id: systemOrder })).data).toMatchObject({ code: "payin_not_this_provider" })
    expect(await getContainer().resolve(Modules.PAYMENT).listPaymentSessions({ provider_id: "pp_payin_default" })).toHaveLength(2)
  })
})
