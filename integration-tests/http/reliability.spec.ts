// Nothing lost, nothing doubled, on one instance: the webhook inbox and its retry, reconciliation
// after lost callbacks, disputes and recalculated amounts with their events, stray payments.
import fc from "fast-check"
import { request } from "undici"
import { sign } from "../../src/client/signature"
import type { RunningSandbox } from "../../src/sandbox"
import { INBOX_LEASE_SECONDS, InboxDrain } from "../../src/money-path/inbox"
import { reconcilePayins } from "../../src/money-path/reconcile"
import { PAYIN_EVENTS, storeSpec } from "../support/harness"
import { control, payinsOfSession } from "../support/sandbox"
import { Storefront } from "../support/storefront"

jest.setTimeout(240_000)

/** What Medusa's (strict) JSON body parser lets through to the route: an object or an array. */
function isJsonDocument(text: string): boolean {
  try {
    const value = JSON.parse(text)
    return typeof value === "object" && value !== null
  } catch {
    return false
  }
}

const KEY = "reliability-key-0123456789"

storeSpec({ key: KEY, events: true }, (h) => {
  const { api, getContainer, events } = h
  let sandbox: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
  beforeEach(() => void ({ sandbox, shop, admin } = h))

  const order = (orderId: string) => h.order(orderId)
  const paymentsOf = (sessionId: string) => h.paymentsOf(sessionId)
  const postWebhook = (body: string, signature?: string) => h.webhook(body, { signature })
  /** A placed order waiting for its payment. */
  const placedOrder = () => h.placedOrder()

  it("all webhooks lost: one reconciliation run completes every paid order, and leaves unpaid ones waiting", async () => {
    sandbox.updateMerchant({ webhookUrl: null })
    const paid = []
    for (let i = 0; i < 6; i++) {
      paid.push(await placedOrder())
    }
    const unpaid = await placedOrder()
    // a payment made before the cart was completed, callback lost too
    const cartId = await shop.cart()
    const early = await shop.session(cartId, "pp_payin_default")
    for (const p of [...paid.map((x) => x.payin), payinsOfSession(sandbox, early.id)[0]]) {
      await control(sandbox, "POST", `/_sandbox/transactions/${p.id}/pay`)
    }
    expect(sandbox.deliveries()).toHaveLength(0)
    for (const p of paid) {
      expect((await order(p.orderId)).payment_status).toBe("awaiting")
    }

    const report = await reconcilePayins(getContainer(), { olderThanSeconds: 0, concurrency: 4 })
    expect(report).toMatchObject({ checked: 8, changed: 7, errors: 0 })

    for (const p of paid) {
      expect((await order(p.orderId)).payment_status).toBe("captured")
      expect(await paymentsOf(p.session.id)).toHaveLength(1)
    }
    const [earlyRow] = await h.ledger.rows({ session_id: early.id })
    expect(earlyRow.order_id).toMatch(/^order_/) // the lookup completed the cart
    expect((await order(unpaid.orderId)).payment_status).toBe("awaiting")

    // a second run changes nothing
    const again = await reconcilePayins(getContainer(), { olderThanSeconds: 0 })
    expect(again.changed).toBe(0)
    for (const p of paid) {
      const [payment] = await paymentsOf(p.session.id)
      expect(payment.captures).toHaveLength(1)
    }
  })

  it("the inbox: stored and answered, applied by the drain, duplicates acknowledged without effect, failures retried", async () => {
    const { session, payin, orderId } = await placedOrder()
    sandbox.updateMerchant({ webhookUrl: null })
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    const closed = JSON.stringify(sandbox.transaction(payin.id))

    const first = await h.webhookApplied(closed)
    expect(first.status).toBe(200)
    expect(first.body).toEqual({ received: true, id: expect.stringMatching(/^payinwh_/) })
    expect(first.applied).toMatchObject({ state: "applied", status: "closed", changed: true, effects: ["captured"] })
    // the same payload, re-serialised in another key order, is the same callback
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(closed)).reverse()))
    for (const body of [closed, reordered, closed]) {
      const dup = await postWebhook(body)
      expect(dup).toEqual({ status: 200, body: { received: true, duplicate: true } })
    }
    await h.ledger.inbox.flush() // duplicates acknowledged from memory are counted in batches
    const entries = await h.ledger.inbox.events({ service_id: payin.id })
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({ state: "applied", duplicates: 3, status: "closed", attempts: 1 })
    expect(entries[0].raw_body).toBe(closed)
    expect(await paymentsOf(session.id)).toHaveLength(1)
    expect((await order(orderId)).payment_status).toBe("captured")

    // an entry that could not be applied (a crash, a database hiccup) is applied by the retry
    const next = await placedOrder()
    await control(sandbox, "POST", `/_sandbox/transactions/${next.payin.id}/pay`)
    const stored = await h.ledger.inbox.receive("pp_payin_default", sandbox.transaction(next.payin.id), "{}")
    await h.ledger.inbox.settle(stored.id, { ok: false, error: "simulated failure" })
    await h.ledger.inbox.updateEvents({ id: stored.id, raw_body: JSON.stringify(sandbox.transaction(next.payin.id)), next_attempt_at: new Date(Date.now() - 1000) })
    expect((await order(next.orderId)).payment_status).toBe("awaiting")
    await h.ledger.inbox.drain()
    expect((await order(next.orderId)).payment_status).toBe("captured")
    const [settled] = await h.ledger.inbox.events({ id: stored.id })
    expect(settled).toMatchObject({ state: "applied", attempts: 2, last_error: null })
  })

  it("one pay-in's callbacks are claimed for booking in the order they came, one at a time", async () => {
    const { payin } = await placedOrder()
    sandbox.updateMerchant({ webhookUrl: null })
    const tx = sandbox.transaction(payin.id)!
    // stored in this order, none booked yet (straight into the inbox: no wake-up)
    const stored = []
    for (const status of ["dispute", "checking", "re_calculation"]) {
      const body = JSON.stringify({ ...tx, status })
      stored.push((await h.ledger.inbox.receive("pp_payin_default", JSON.parse(body), body)).id)
    }
    const inbox = h.payin().inbox
    // the oldest only; the next once it is booked (before, all three were claimed and booked at once,
    // and whichever took the pay-in's lock last set its final status)
    expect((await inbox.claim(8, 30)).map((e: any) => e.id)).toEqual([stored[0]])
    expect(await inbox.claim(8, 30)).toEqual([])
    await inbox.settle(stored[0], { ok: true, result: null })
    expect((await inbox.claim(8, 30)).map((e: any) => e.id)).toEqual([stored[1]])
    // a failed one waiting for its retry holds nothing up
    await inbox.settle(stored[1], { ok: false, error: "simulated failure" })
    expect((await inbox.claim(8, 30)).map((e: any) => e.id)).toEqual([stored[2]])
    await inbox.settle(stored[2], { ok: true, result: null })
  })

  it("soak seed 1 (30 minutes): a webhook's lease is short and extended while it is booked: no one takes it meanwhile, and a killed worker's passes within INBOX_LEASE_SECONDS", async () => {
    // a killed worker's entries wait out the lease: it must pass before the shortest backlog alert (10 s)
    expect(INBOX_LEASE_SECONDS).toBeLessThanOrEqual(10)
    const { payin } = await placedOrder()
    sandbox.updateMerchant({ webhookUrl: null })
    const body = JSON.stringify({ ...sandbox.transaction(payin.id)!, status: "dispute" })
    const stored = (await h.ledger.inbox.receive("pp_payin_default", JSON.parse(body), body)).id
    const inbox = h.payin().inbox
    // a booking that runs past its first lease (held until released)
    let release!: () => void
    let begun!: () => void
    const held = new Promise<void>((r) => (release = r))
    const started = new Promise<void>((r) => (begun = r))
    const slow = new InboxDrain(getContainer(), 1, async (_c, entry) => {
      begun()
      await held
      await inbox.settle(entry.id, { ok: true, result: null })
    })
    const draining = slow.drain()
    await started
    const [claimed] = await h.ledger.inbox.events({ id: stored })
    await new Promise((r) => setTimeout(r, INBOX_LEASE_SECONDS * 1000 + 2_000))
    // past its first lease, still leased: another process claims nothing of it
    expect(await inbox.claim(8, INBOX_LEASE_SECONDS)).toEqual([])
    const [extended] = await h.ledger.inbox.events({ id: stored })
    expect(+new Date(extended.claimed_until)).toBeGreaterThan(+new Date(claimed.claimed_until))
    release()
    await draining
    expect(await h.ledger.inbox.entry(stored)).toMatchObject({ state: "applied" })
  })

  it("refused requests are counted, never stored", async () => {
    const before = (await h.ledger.inbox.events({})).length
    const body = JSON.stringify({ id: "x", status: "closed" })
    expect((await postWebhook(body, sign(body, "wrong-key-123456"))).status).toBe(401)
    expect((await postWebhook(body, "nothex")).status).toBe(400)
    // validly signed, but not a Transaction
    expect((await postWebhook(body)).status).toBe(400)
    // not JSON at all: Medusa's body parser answers 400 before the route runs
    expect((await postWebhook("not json", sign("not json", KEY))).status).toBe(400)
    // counted once, in the minute counters the health and webhook health both read
    const deliveries = await h.ledger.inbox.deliveries("pp_payin_default")
    expect(deliveries).toMatchObject({ rejected: 3, last_failure_reason: "invalid_transaction" })
    const { rows } = await h.sql(`select kind, sum(count)::int as n from payin_health_counter where provider_id = 'pp_payin_default' and kind like 'webhook:refused:%' group by kind order by kind`)
    expect(rows).toEqual([
      { kind: "webhook:refused:invalid_transaction", n: 1 },
      { kind: "webhook:refused:signature_malformed", n: 1 },
      { kind: "webhook:refused:signature_mismatch", n: 1 },
    ])
    expect((await h.ledger.inbox.events({})).length).toBe(before)
  })

  it("fuzzing the webhook route: whatever arrives unsigned or mis-signed gets a 4xx, never a 5xx, and changes nothing", async () => {
    const { payin } = await placedOrder()
    const realBody = JSON.stringify({ ...sandbox.transaction(payin.id)!, status: "closed" })
    const ledgerBefore = JSON.stringify(await h.ledger.rows({}, { order: { id: "ASC" } }))
    const inboxBefore = (await h.ledger.inbox.events({})).length

    const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`))
    const signature = (body: string) =>
      fc.oneof(
        fc.constant<string | undefined>(undefined),
        fc.string({ maxLength: 80 }),
        fc.integer({ min: 0, max: 130 }).chain((n) => hex(n)),
        fc.constant(sign(body, "some-other-merchant-key")),
        fc.constant(sign(body + "x", KEY)),
        fc.constant(sign(body === realBody ? `${realBody}\n` : realBody, KEY)) // valid, for another body
      )
    const body = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.json({ maxDepth: 3 }),
      fc.constant(realBody),
      fc.constant(realBody.replace('"closed"', '"canceled"')),
      fc.constant("x".repeat(300 * 1024))
    )
    const contentType = fc.constantFrom(undefined, "application/json", "text/plain", "application/octet-stream", "application/vnd.x+json")
    const unknownInstance = fc.boolean()

    await fc.assert(
      fc.asyncProperty(body.chain((b) => fc.tuple(fc.constant(b), signature(b), contentType, unknownInstance)), async ([b, sig, type, unknown]) => {
        const headers: Record<string, string> = {}
        if (sig !== undefined) headers["x-signature"] = sig
        if (type) headers["content-type"] = type
        const res = await request(`${api.defaults.baseURL}/hooks/payin/${unknown ? "nope" : "default"}`, { method: "POST", headers, body: b })
        await res.body.text()
        expect(res.statusCode).toBeGreaterThanOrEqual(400)
        expect(res.statusCode).toBeLessThan(500)
        const exactLengthWrongHex = sig !== undefined && /^[0-9a-f]{64}$/.test(sig) && sig !== sign(b, KEY)
        if (!unknown && type === "application/json" && b.length < 1024 && exactLengthWrongHex && isJsonDocument(b)) {
          expect(res.statusCode).toBe(401)
        }
      }),
      { numRuns: 250 }
    )

    expect(JSON.stringify(await h.ledger.rows({}, { order: { id: "ASC" } }))).toBe(ledgerBefore)
    expect((await h.ledger.inbox.events({})).length).toBe(inboxBefore)
    expect((await api.get("/health")).status).toBe(200)
  })

  it("dispute, checking, recalculation and close: recorded, announced, and the recalculated amount is booked", async () => {
    const { payin, orderId, session } = await placedOrder()
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/dispute`, {
      checkUrl: "https://receipts.example/1.pdf",
      fiatAmount: "1500.00",
    })
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/checking`)
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/recalculate`, { fiatAmount: "1500.00" })
    await h.deliver()

    const [row] = await h.ledger.rows({ service_id: payin.id }, { relations: ["history"] })
    expect(row.status).toBe("re_calculation")
    expect(row.fiat_amount).toBe("1500.00")
    expect(row.recalculated_at).toBeTruthy()
    expect(row.service_data.disputeMerchantCheckUrl).toBe("https://receipts.example/1.pdf")
    expect(row.history.map((h: any) => h.to_status)).toEqual(
      expect.arrayContaining(["active", "dispute", "checking", "re_calculation"])
    )
    expect(events.map((e) => e.name)).toEqual([
      PAYIN_EVENTS.DISPUTE_OPENED,
      PAYIN_EVENTS.DISPUTE_UPDATED,
      PAYIN_EVENTS.AMOUNT_RECALCULATED,
    ])
    expect(events[0].data).toMatchObject({
      service_id: payin.id,
      dispute: { merchant_check_url: "https://receipts.example/1.pdf", merchant_fiat_amount: "1500.00" },
    })
    expect(events[2].data.fiat_amount).toBe("1500.00")
    expect((await order(orderId)).payment_status).toBe("awaiting")

    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/close`)
    await h.deliver()
    const [closedRow] = await h.ledger.rows({ service_id: payin.id })
    expect(closedRow.status).toBe("closed")
    expect(closedRow.flags.underpayment).toMatchObject({ assigned_amount: "1790.00", received_amount: "1500.00" })
    const after = await order(orderId)
    // Medusa books what arrived (1500.00 of 1790.00): partly captured, the rest owed
    expect(after.payment_status).toBe("partially_captured")
    const booked = after.transactions.reduce((sum: number, t: any) => sum + Number(t.amount), 0)
    expect(booked).toBe(1500)
    const [payment] = await paymentsOf(session.id)
    expect(payment.captures.map((c: any) => Number(c.amount))).toEqual([1500])
    expect(events.filter((e) => e.name === PAYIN_EVENTS.PAYMENT_FLAGGED).map((e) => e.data.flag)).toEqual(["underpayment"])
  })

  it("paid, then disputed before the store heard of the payment (every callback lost, seed 83's shape): the order waits, nothing captured, and is captured once when the service closes it", async () => {
    const { payin, orderId, session } = await placedOrder()
    const total = Number(payin.fiatAmount)
    const url = sandbox.merchant().webhookUrl
    sandbox.updateMerchant({ webhookUrl: null })
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/dispute`)
    sandbox.updateMerchant({ webhookUrl: url })
    expect(sandbox.deliveries()).toHaveLength(0)

    // the lookups see only the dispute: a Transaction says nothing of a payment before it
    await reconcilePayins(getContainer(), { olderThanSeconds: 0 })
    const [row] = await h.ledger.rows({ service_id: payin.id })
    expect(row.status).toBe("dispute")
    const now = await api.post(`/admin/payin/transactions/${row.id}/reconcile`, {}, admin)
    expect(now.status).toBe(200)
    const waiting = await order(orderId)
    expect(waiting.status).not.toBe("canceled")
    expect(waiting.payment_status).toBe("awaiting")
    expect((await paymentsOf(session.id)).flatMap((p) => p.captures)).toEqual([])
    expect((await h.ledger.rows({ service_id: payin.id }))[0].flags?.dispute_after_payment).toBeUndefined()

    // the service ends the dispute: captured once, for the order total
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/close`)
    await h.deliver()
    await reconcilePayins(getContainer(), { olderThanSeconds: 0 })
    expect((await postWebhook(JSON.stringify(sandbox.transaction(payin.id)))).body.duplicate).toBe(true)
    const after = await order(orderId)
    expect(after.payment_status).toBe("captured")
    expect(Number(after.total)).toBe(total)
    const payments = await paymentsOf(session.id)
    expect(payments).toHaveLength(1)
    expect(payments[0].captures.map((c: any) => Number(c.amount))).toEqual([total])
    expect((await h.ledger.rows({ service_id: payin.id }))[0].status).toBe("closed")
  })

  it("stray payments: paid after the cart changed, or after the merchant canceled the order; flagged with what resolves them", async () => {
    // the cart changed: the old session is gone
    const cartId = await shop.cart()
    const old = await shop.session(cartId, "pp_payin_default")
    const [oldPayin] = payinsOfSession(sandbox, old.id)
    await shop.addItem(cartId)
    await shop.session(cartId, "pp_payin_default")
    await control(sandbox, "POST", `/_sandbox/transactions/${oldPayin.id}/pay`)

    // the merchant canceled the waiting order in the admin, then the shopper paid
    const { payin, orderId } = await placedOrder()
    await api.post(`/admin/orders/${orderId}/cancel`, {}, admin)
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    await h.deliver()

    const [stray] = await h.ledger.rows({ session_id: old.id })
    expect(stray.flags.stray_payment).toMatchObject({
      fiat_amount: "1790.00",
      session_id: old.id,
      requisite: expect.objectContaining({ requisites: expect.any(String) }),
      at: expect.any(String),
    })
    const [late] = await h.ledger.rows({ service_id: payin.id })
    expect(late.flags.late_payment).toMatchObject({ order_id: orderId, fiat_amount: "1790.00" })
    expect(late.captured_at).toBeNull()
    const canceled = await order(orderId)
    expect(canceled.status).toBe("canceled")
    expect(canceled.payment_status).toBe("canceled")

    const flagged = events.filter((e) => e.name === PAYIN_EVENTS.PAYMENT_FLAGGED)
    expect(flagged.map((e) => e.data.flag).sort()).toEqual(["late_payment", "stray_payment"])
    expect(flagged.find((e) => e.data.flag === "late_payment")!.data.order_id).toBe(orderId)

    // the later authorize of that session answers canceled: no payment can attach to the order
    const again = await postWebhook(JSON.stringify(sandbox.transaction(payin.id)))
    expect(again.body.duplicate).toBe(true)
  })
})
