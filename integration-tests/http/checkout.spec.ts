// Checkout end to end: a real Medusa on PostgreSQL, the sandbox payment service over HTTP, the
// store API driven as a storefront would, the sandbox's control API playing the shopper.
import { request } from "undici"
import { sign } from "../../src/client/signature"
import type { RunningSandbox } from "../../src/sandbox"
import { storeSpec } from "../support/harness"
import { control, payinsOfSession } from "../support/sandbox"
import { Storefront } from "../support/storefront"

jest.setTimeout(180_000)

const KEY = "test-key-default-0123456789"
const SECOND_KEY = "test-key-second-9876543210"

storeSpec({ key: KEY, secondKey: SECOND_KEY }, (h) => {
  const { api, deliver } = h
  let sandbox: RunningSandbox, second: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
  beforeEach(() => void ({ sandbox, second, shop, admin } = h))

  const ledgerRows = (filters: Record<string, unknown>) => h.ledger.rows(filters)
  const order = (orderId: string) =>
    h.order(orderId, "id,status,payment_status,*payment_collections,*payment_collections.payments,*payment_collections.payments.captures")
  const paymentOfSession = (sessionId: string) => h.paymentsOf(sessionId)

  it("1. order first: requisites at checkout, order awaits payment, the shopper pays, the webhook captures", async () => {
    const cartId = await shop.cart()
    const session = await shop.session(cartId, "pp_payin_default", { method: "card", success_url: "http://localhost:8000/ok" })

    // what the storefront gets: requisites, amounts, expiry; nothing secret
    expect(session.status).toBe("pending")
    expect(session.data).toMatchObject({
      payin_status: "active",
      amount: "1790.00", // 1490 product + 300 shipping
      currency: "RUB",
      method: "card",
      requisite: { owner_name: expect.any(String), number: expect.any(String), bank: expect.any(String) },
      payment_page_url: expect.stringContaining(sandbox.url),
    })
    expect(Date.parse(session.data.expires_at)).toBeGreaterThan(Date.now())
    expect(JSON.stringify(session)).not.toContain(KEY)
    expect(session.data.payin_client).toBeUndefined()

    // what the service got: the session id as external id, payer info captured server-side
    const [payin] = payinsOfSession(sandbox, session.id)
    expect(payin.fiatAmount).toBe("1790.00")
    expect(payin.extra.payerInfo).toMatchObject({ userAgent: "PayinTestBrowser/1.0", ip: expect.stringMatching(/127\.0\.0\.1|::1/) })

    const completed = await shop.complete(cartId)
    expect(completed.data.type).toBe("order")
    const orderId = completed.data.order.id
    expect((await order(orderId)).payment_status).toBe("awaiting")
    expect(await paymentOfSession(session.id)).toHaveLength(0)

    const paid = await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    expect(paid.body.status).toBe("closed")
    await deliver()

    const after = await order(orderId)
    expect(after.payment_status).toBe("captured")
    const payments = await paymentOfSession(session.id)
    expect(payments).toHaveLength(1)
    expect(payments[0].captures).toHaveLength(1)
    expect(Number(payments[0].captures[0].amount)).toBe(1790)
    const [row] = await ledgerRows({ session_id: session.id })
    expect(row).toMatchObject({ status: "closed", service_id: payin.id, order_id: orderId })
    expect(row.captured_at).toBeTruthy()
    const delivered = sandbox.deliveries().filter((d) => d.body.includes(payin.id))
    expect(delivered.at(-1)?.responseStatus).toBe(200)
  })

  it("2. payment first: the webhook alone completes the cart and captures", async () => {
    const { cartId, session, payin } = await h.cartWithPayin()

    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    await deliver()

    const [row] = await ledgerRows({ session_id: session.id })
    expect(row.status).toBe("closed")
    expect(row.order_id).toMatch(/^order_/)
    expect((await order(row.order_id)).payment_status).toBe("captured")

    // the storefront's own completion finds the same order
    const completed = await shop.complete(cartId)
    expect(completed.data.type).toBe("order")
    expect(completed.data.order.id).toBe(row.order_id)
    expect(await paymentOfSession(session.id)).toHaveLength(1)
  })

  it("3a. window expiry after the order was placed: canceled webhook, no capture, order canceled", async () => {
    const { cartId, session, payin } = await h.cartWithPayin()
    const orderId = (await shop.complete(cartId)).data.order.id

    await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
    await control(sandbox, "GET", `/_sandbox/transactions/${payin.id}`) // expiry is also applied on read
    await deliver()

    expect(sandbox.transaction(payin.id)?.status).toBe("canceled")
    const after = await order(orderId)
    expect(after.status).toBe("canceled")
    expect(after.payment_status).toBe("canceled")
    expect(await paymentOfSession(session.id)).toHaveLength(0)
    const [row] = await ledgerRows({ session_id: session.id })
    expect(row.status).toBe("canceled")
    expect(row.store_canceled_at).toBeTruthy()

    // the shopper pays after all (late): recorded and flagged, never attached to the canceled order
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/dispute`)
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/close`)
    await deliver()
    const [late] = await ledgerRows({ session_id: session.id })
    expect(late.status).toBe("closed")
    expect(late.flags.late_payment).toMatchObject({ order_id: orderId, fiat_amount: "1790.00" })
    expect(await paymentOfSession(session.id)).toHaveLength(0)
    expect((await order(orderId)).status).toBe("canceled")
  })

  it("3b. window expiry before completion: the cart cannot complete, with a clear state", async () => {
    const { cartId, session, payin } = await h.cartWithPayin()
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/expire`)
    await deliver()

    const completed = await shop.complete(cartId)
    expect(completed.status).toBe(400)
    expect(completed.data.message).toMatch(/not authorized/)
    const { data } = await api.get(`/store/carts/${cartId}?fields=*payment_collection.payment_sessions`, shop.headers)
    const stored = data.cart.payment_collection.payment_sessions[0]
    expect(stored.status).toBe("canceled")
    expect(stored.data.error_message).toMatch(/payment window/)
    expect(await paymentOfSession(session.id)).toHaveLength(0)
  })

  it("4. cart changed after the session: a new pay-in; paying the stale requisites is recorded, not lost", async () => {
    const cartId = await shop.cart()
    const first = await shop.session(cartId, "pp_payin_default")
    const [oldPayin] = payinsOfSession(sandbox, first.id)

    await shop.addItem(cartId) // Medusa deletes the session: the total changed
    const secondSession = await shop.session(cartId, "pp_payin_default")
    expect(secondSession.id).not.toBe(first.id)
    const [newPayin] = payinsOfSession(sandbox, secondSession.id)
    expect(newPayin.fiatAmount).toBe("3280.00")

    const [oldRow] = await ledgerRows({ session_id: first.id })
    expect(oldRow.session_deleted_at).toBeTruthy()

    await control(sandbox, "POST", `/_sandbox/transactions/${oldPayin.id}/pay`)
    await deliver()
    const [stray] = await ledgerRows({ session_id: first.id })
    expect(stray.status).toBe("closed")
    expect(stray.flags.stray_payment).toMatchObject({ fiat_amount: "1790.00", session_id: first.id })
    expect(stray.captured_at).toBeNull()
    expect(await paymentOfSession(first.id)).toHaveLength(0)

    // the current session still checks out normally
    const completed = await shop.complete(cartId)
    expect(completed.data.type).toBe("order")
    await control(sandbox, "POST", `/_sandbox/transactions/${newPayin.id}/pay`)
    await deliver()
    expect((await order(completed.data.order.id)).payment_status).toBe("captured")
  })

  it("4b. cart changed and the old pay-in paid before the new session (soak seed 1): the changed cart gets new details for its total and is paid; the stray money stays flagged, not captured", async () => {
    const cartId = await shop.cart()
    const first = await shop.session(cartId, "pp_payin_default")
    const [oldPayin] = payinsOfSession(sandbox, first.id)
    await shop.addItem(cartId)
    await control(sandbox, "POST", `/_sandbox/transactions/${oldPayin.id}/pay`)
    await deliver()
    const [stray] = await ledgerRows({ session_id: first.id })
    expect(stray.flags.stray_payment).toMatchObject({ fiat_amount: "1790.00" })

    // before: 400 payin_already_paid, and the cart could never be paid
    const second = await shop.session(cartId, "pp_payin_default")
    const [newPayin] = payinsOfSession(sandbox, second.id)
    expect(newPayin.fiatAmount).toBe("3280.00")
    const completed = await shop.complete(cartId)
    expect(completed.data.type).toBe("order")
    await control(sandbox, "POST", `/_sandbox/transactions/${newPayin.id}/pay`)
    await deliver()
    expect((await order(completed.data.order.id)).payment_status).toBe("captured")
    expect(await paymentOfSession(first.id)).toHaveLength(0)
    expect((await ledgerRows({ session_id: first.id }))[0].captured_at).toBeNull()
  })

  describe("5. the service fails at creation", () => {
    const expectNothingHalfCreated = async (sessionsBefore: number) => {
      const rows = await ledgerRows({})
      expect(rows.filter((r) => r.status === "active" && !r.session_deleted_at)).toHaveLength(0)
      expect(sandbox.transactions().length).toBe(sessionsBefore)
    }

    it("wrong API key: a clear error, no pay-in", async () => {
      sandbox.updateMerchant({ apiKey: "rotated-key-000000000" })
      const cartId = await shop.cart()
      const before = sandbox.transactions().length
      const error = await shop.sessionError(cartId, "pp_payin_default")
      expect(error.status).toBe(400)
      expect(error.data.message).toMatch(/refused the store's credentials/)
      // the code also ends the message, for clients that keep only the message (js-sdk FetchError)
      expect(error.data.message).toMatch(/ \(payin_unavailable\)$/)
      expect(JSON.stringify(error.data)).not.toContain(KEY)
      await expectNothingHalfCreated(before)
      const [row] = await ledgerRows({ status: "failed" })
      expect(row.last_error).toMatch(/401/)
      expect(row.last_error).not.toContain(KEY)
    })

    it("IP whitelist 403: a clear error, and the log tells the merchant what to do", async () => {
      sandbox.updateMerchant({ whitelist: ["203.0.113.7"] })
      const cartId = await shop.cart()
      const before = sandbox.transactions().length
      const error = await shop.sessionError(cartId, "pp_payin_default")
      expect(error.status).toBe(400)
      await expectNothingHalfCreated(before)
      const [row] = await ledgerRows({ status: "failed" })
      expect(row.last_error).toMatch(/MERCHANT_IP_NOT_WHITELISTED/)
      expect(row.last_error).toMatch(/outgoing IP address/)
    })

    it("one 5xx, one connection reset, one timeout: each recovered with exactly one pay-in", async () => {
      for (const fault of [{ status: 502 }, { reset: true }, { delayMs: 2500 }]) {
        sandbox.setFaults([{ route: "POST /payment/trading/pay-in", count: 1, ...fault }])
        const cartId = await shop.cart()
        const session = await shop.session(cartId, "pp_payin_default")
        expect(session.data.payin_status).toBe("active")
        // the delayed original may still land: the sandbox refuses the duplicate external id
        await new Promise((r) => setTimeout(r, fault.delayMs ? 1500 : 0))
        expect([fault, payinsOfSession(sandbox, session.id).length]).toEqual([fault, 1])
      }
    })

    it("a service that keeps failing: a clear error, nothing half-created", async () => {
      sandbox.setFaults([{ route: "POST /payment/trading/pay-in", status: 503 }])
      const cartId = await shop.cart()
      const before = sandbox.transactions().length
      const error = await shop.sessionError(cartId, "pp_payin_default")
      expect(error.status).toBe(400)
      expect(error.data.message).toMatch(/not responding/)
      await expectNothingHalfCreated(before)
    })

    it("requisites exhausted: the shopper is told to try again", async () => {
      const cartId = await shop.cart()
      // use up the requisites of one bank and method for this amount
      const { data: session } = { data: await shop.session(cartId, "pp_payin_default", { method: "card", bank: "sberbank" }) }
      expect(session.data.bank).toBe("sberbank")
      let error: { status: number; data: any } | null = null
      for (let i = 0; i < 10 && !error; i++) {
        const next = await shop.cart()
        try {
          await shop.session(next, "pp_payin_default", { method: "card", bank: "sberbank" })
        } catch (e: any) {
          error = { status: e.response.status, data: e.response.data }
        }
      }
      expect(error?.status).toBe(400)
      expect(error?.data.message).toMatch(/No payment requisites are available/)
    })
  })

  it("refuses untrusted storefront data: unknown keys, foreign redirect origins, forged payer info", async () => {
    const cartId = await shop.cart()
    const unknown = await shop.sessionError(cartId, "pp_payin_default", { apiKey: "x" })
    expect(unknown.status).toBe(400)
    expect(unknown.data.message).toMatch(/Unknown payment data field/)
    expect(unknown.data.message).toMatch(/ \(payin_invalid_data\)$/)
    const redirect = await shop.sessionError(cartId, "pp_payin_default", { success_url: "https://evil.example/phish" })
    expect(redirect.status).toBe(400)
    expect(redirect.data.message).toMatch(/allowed redirect origins/)

    const session = await shop.session(cartId, "pp_payin_default", { payin_client: { ip: "6.6.6.6", user_agent: "forged" } })
    const [payin] = payinsOfSession(sandbox, session.id)
    expect(payin.extra.payerInfo?.ip).not.toBe("6.6.6.6")
    expect(payin.extra.payerInfo?.userAgent).toBe("PayinTestBrowser/1.0")
  })

  it("6. webhook signatures: bad, missing, non-hex and wrong-length change nothing; a duplicate closed captures once", async () => {
    const { cartId, session, payin } = await h.cartWithPayin()
    const orderId = (await shop.complete(cartId)).data.order.id
    const url = `${api.defaults.baseURL}/hooks/payin/default`
    const body = JSON.stringify({ ...payin, status: "closed" })
    const post = async (headers: Record<string, string>, payload = body) => {
      const res = await request(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: payload })
      return { status: res.statusCode, body: (await res.body.json()) as any }
    }

    expect((await post({})).status).toBe(400)
    expect((await post({ "x-signature": "zz".repeat(32) })).status).toBe(400)
    expect((await post({ "x-signature": sign(body, KEY).slice(0, 40) })).status).toBe(400)
    const mismatch = await post({ "x-signature": sign(body, "some-other-key-123") })
    expect(mismatch.status).toBe(401)
    expect(mismatch.body.code).toBe("signature_mismatch")
    // signed for another body
    expect((await post({ "x-signature": sign(body + " ", KEY) })).status).toBe(401)
    // no JSON content type: no raw body to verify
    const plain = await request(url, { method: "POST", headers: { "x-signature": sign(body, KEY) }, body })
    expect(plain.statusCode).toBe(400)
    await plain.body.text()
    // validly signed but not a Transaction
    const junk = JSON.stringify({ hello: "world" })
    expect((await post({ "x-signature": sign(junk, KEY) }, junk)).status).toBe(400)
    // unknown instance
    expect((await h.webhook(body, { instance: "nope", key: KEY })).status).toBe(404)

    expect((await order(orderId)).payment_status).toBe("awaiting")
    const [untouched] = await ledgerRows({ session_id: session.id })
    expect(untouched.status).toBe("active")

    // the real thing, then three duplicates
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/webhook`, { repeat: 3 })
    await deliver()
    const direct = await post({ "x-signature": sign(JSON.stringify(sandbox.transaction(payin.id)), KEY) }, JSON.stringify(sandbox.transaction(payin.id)))
    expect(direct.status).toBe(200)
    expect(direct.body.duplicate).toBe(true)

    const payments = await paymentOfSession(session.id)
    expect(payments).toHaveLength(1)
    expect(payments[0].captures).toHaveLength(1)
    expect((await order(orderId)).payment_status).toBe("captured")
    const deliveries = sandbox.deliveries().filter((d) => d.body.includes(payin.id))
    expect(deliveries.length).toBeGreaterThanOrEqual(4)
    expect(deliveries.every((d) => d.responseStatus === 200)).toBe(true)
  })

  it("7. two provider instances with different merchant accounts side by side", async () => {
    const cartA = await shop.cart()
    const cartB = await shop.cart()
    const a = await shop.session(cartA, "pp_payin_default")
    const b = await shop.session(cartB, "pp_payin_second")
    expect(payinsOfSession(sandbox, a.id)).toHaveLength(1)
    expect(payinsOfSession(second, b.id)).toHaveLength(1)
    expect(payinsOfSession(sandbox, b.id)).toHaveLength(0)
    const [payinB] = payinsOfSession(second, b.id)

    // a webhook for the second account signed with the first account's key is refused
    const body = JSON.stringify({ ...payinB, status: "closed" })
    expect((await h.webhook(body, { instance: "second", key: KEY })).status).toBe(401)

    const orderB = (await shop.complete(cartB)).data.order.id
    await control(second, "POST", `/_sandbox/transactions/${payinB.id}/pay`)
    await deliver()
    expect((await order(orderB)).payment_status).toBe("captured")
    const [rowB] = await ledgerRows({ session_id: b.id })
    expect(rowB.provider_id).toBe("pp_payin_second")
    const [rowA] = await ledgerRows({ session_id: a.id })
    expect(rowA).toMatchObject({ provider_id: "pp_payin_default", status: "active" })
  })
})
