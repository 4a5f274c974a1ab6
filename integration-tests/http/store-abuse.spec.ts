// The store API under abuse: one cart looping POST /store/payment-collections/:id/payment-sessions
// must not use up the merchant's requisites (each pay-in holds a trader's requisites for its
// whole window), errors must not carry the service's or the database's words to the shopper, and
// the unauthenticated webhook GET must not tell which instances exist. A real Medusa on
// PostgreSQL, the sandbox service over HTTP; money asserted on Medusa's own records.
import { request } from "undici"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { RunningSandbox } from "../../src/sandbox"
import { MAX_CREATIONS_PER_COLLECTION } from "../../src/providers/payin/session-reuse"
import { storeSpec } from "../support/harness"
import { control, payinsOfSession } from "../support/sandbox"
import { Storefront } from "../support/storefront"

jest.setTimeout(240_000)

const KEY = "store-abuse-key-0123456789abc"

storeSpec({ key: KEY }, (h) => {
  const { api, getContainer } = h
  let sandbox: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
  beforeEach(() => void ({ sandbox, shop, admin } = h))

  const rowOf = h.ledger.row
  const pg = () => getContainer().resolve(ContainerRegistrationKeys.PG_CONNECTION) as any
  const query = () => getContainer().resolve(ContainerRegistrationKeys.QUERY)

  /** The collection's live sessions and what Medusa booked on them, from Medusa's records. */
  const collection = async (collectionId: string) => {
    const { data } = await query().graph({
      entity: "payment_collection",
      fields: ["id", "captured_amount", "payment_sessions.id", "payment_sessions.payment.id", "payment_sessions.payment.captures.amount"],
      filters: { id: collectionId },
    })
    const c = data[0] as any
    return {
      sessionIds: (c.payment_sessions ?? []).map((s: any) => s.id) as string[],
      captured: Number(c.captured_amount ?? 0),
      captures: (c.payment_sessions ?? []).flatMap((s: any) => s.payment?.captures ?? []).map((x: any) => Number(x.amount)) as number[],
    }
  }

  const order = async (orderId: string) => (await api.get(`/admin/orders/${orderId}?fields=id,status,payment_status`, admin)).data.order

  /** A payment session for an existing collection; resolves with the error answer instead of throwing. */
  const sessionFor = async (collectionId: string, data?: Record<string, unknown>) =>
    api
      .post(`/store/payment-collections/${collectionId}/payment-sessions`, { provider_id: "pp_payin_default", ...(data ? { data } : {}) }, shop.headers)
      .then(
        (r: any) => ({ status: r.status as number, session: r.data.payment_collection.payment_sessions[0] as any, data: r.data }),
        (e: any) => ({ status: e.response?.status as number, session: null, data: e.response?.data })
      )

  describe("a new payment session for the same payment re-shows the live pay-in", () => {
    it("no second pay-in at the service; its payment is captured for the new session, not flagged stray", async () => {
      const cartId = await shop.cart()
      const first = await shop.session(cartId, "pp_payin_default")
      const [payin] = payinsOfSession(sandbox, first.id)
      const collectionId = await shop.paymentCollection(cartId)
      const before = sandbox.transactions().length

      const second = await shop.session(cartId, "pp_payin_default")
      expect(second.id).not.toBe(first.id)
      expect(sandbox.transactions().length).toBe(before)
      expect(second.data).toMatchObject({
        payin_id: payin.id,
        payin_status: "active",
        amount: "1790.00",
        requisite: first.data.requisite,
        expires_at: first.data.expires_at,
      })
      // Medusa replaced the session; the ledger follows: the pay-in is the new session's
      expect((await collection(collectionId)).sessionIds).toEqual([second.id])
      const row = await rowOf({ service_id: payin.id })
      expect(row).toMatchObject({ session_id: second.id, session_deleted_at: null })
      expect(await h.ledger.rows({ payment_collection_id: collectionId })).toHaveLength(1)

      // the shopper places the order and pays the requisites shown (both times)
      const completed = await shop.complete(cartId)
      expect(completed.data.type).toBe("order")
      const orderId = completed.data.order.id
      await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
      await h.deliver()

      expect((await order(orderId)).payment_status).toBe("captured")
      const booked = await collection(collectionId)
      expect(booked.captures).toEqual([1790])
      expect(booked.captured).toBe(1790)
      const paid = await rowOf({ service_id: payin.id })
      expect(paid).toMatchObject({ status: "closed", order_id: orderId, session_id: second.id })
      expect(paid.captured_at).toBeTruthy()
      expect(paid.flags ?? {}).not.toHaveProperty("stray_payment")
    })

    it("paid before completion: the webhook completes the cart through the new session", async () => {
      const cartId = await shop.cart()
      const first = await shop.session(cartId, "pp_payin_default", { method: "card" })
      const [payin] = payinsOfSession(sandbox, first.id)
      const second = await shop.session(cartId, "pp_payin_default", { method: "card" })
      expect(second.data.payin_id).toBe(payin.id)

      await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
      await h.deliver()
      const row = await rowOf({ service_id: payin.id })
      expect(row.order_id).toMatch(/^order_/)
      expect((await order(row.order_id)).payment_status).toBe("captured")
      const { data: payments } = await query().graph({
        entity: "payment",
        fields: ["id", "captures.amount"],
        filters: { payment_session_id: second.id },
      })
      expect((payments as any[]).flatMap((p) => p.captures).map((c: any) => Number(c.amount))).toEqual([1790])
      expect(row.flags ?? {}).not.toHaveProperty("stray_payment")
    })

    it("never for another method or bank chosen, nor with less than a minute of its window left", async () => {
      const cartId = await shop.cart()
      const card = await shop.session(cartId, "pp_payin_default", { method: "card" })
      const qr = await shop.session(cartId, "pp_payin_default", { method: "qr" })
      expect(qr.data.payin_id).not.toBe(card.data.payin_id)
      const cardAgain = await shop.session(cartId, "pp_payin_default", { method: "card" })
      expect(cardAgain.data.payin_id).toBe(card.data.payin_id)
      const otherBank = await shop.session(cartId, "pp_payin_default", { method: "card", bank: card.data.bank === "vtb" ? "sberbank" : "vtb" })
      expect(otherBank.data.payin_id).not.toBe(card.data.payin_id)

      // the card pay-in's window nearly over: not shown again
      await pg().raw("update payin_transaction set expires_at = now() + interval '30 seconds' where service_id = ?", [card.data.payin_id])
      const late = await shop.session(cartId, "pp_payin_default", { method: "card", bank: card.data.bank })
      expect(late.data.payin_id).not.toBe(card.data.payin_id)
      expect(sandbox.transactions()).toHaveLength(4)
    })

    it("a failed attempt for another method: Medusa restores the old session with the live pay-in, which stays current", async () => {
      const cartId = await shop.cart()
      const card = await shop.session(cartId, "pp_payin_default", { method: "card" })
      const collectionId = await shop.paymentCollection(cartId)
      sandbox.setFaults([{ route: "POST /payment/trading/pay-in", status: 409, code: "REQUISITES_UNAVAILABLE", count: 1 }])
      const refused = await sessionFor(collectionId, { method: "qr" })
      expect(refused.data.code).toBe("payin_requisites_unavailable")

      // Medusa deleted the card session while creating the qr one, then re-created it from its
      // data (compensation): the same pay-in, re-attached; nothing more asked of the service
      expect(sandbox.transactions()).toHaveLength(1)
      const { data } = await api.get(`/store/carts/${cartId}?fields=*payment_collection.payment_sessions`, shop.headers)
      const [restored] = data.cart.payment_collection.payment_sessions
      expect(restored.data.payin_id).toBe(card.data.payin_id)
      expect(await rowOf({ service_id: card.data.payin_id })).toMatchObject({ session_id: restored.id, session_deleted_at: null })
      const status = await api.get(`/store/payin/status?cart_id=${cartId}`, shop.headers)
      expect(status.data.payin).toMatchObject({ payin_id: card.data.payin_id, state: "awaiting_payment" })
    })
  })

  describe(`at most ${MAX_CREATIONS_PER_COLLECTION} pay-ins per cart in the window`, () => {
    const methods = ["card", "qr", "phone_number", "account", "deeplink", "link", "mobile_comm", "quasi"]

    it("refuses the next one with payin_too_many_attempts, nothing reaches the service; the live one is still shown", async () => {
      const cartId = await shop.cart()
      const collectionId = await shop.paymentCollection(cartId)
      for (const method of methods.slice(0, MAX_CREATIONS_PER_COLLECTION)) {
        const created = await sessionFor(collectionId, { method })
        expect([method, created.status]).toEqual([method, 200])
      }
      const before = sandbox.transactions().length
      expect(before).toBe(MAX_CREATIONS_PER_COLLECTION)

      const refused = await sessionFor(collectionId, { method: "link" })
      expect(refused.status).toBe(400)
      expect(refused.data.code).toBe("payin_too_many_attempts")
      expect(refused.data.message).toMatch(/Too many payment attempts.*\(payin_too_many_attempts\)$/)
      expect(sandbox.transactions().length).toBe(before)

      // the live pay-in of the last choice is still shown (nothing new is asked for)
      const again = await sessionFor(collectionId, { method: methods[MAX_CREATIONS_PER_COLLECTION - 1] })
      expect(again.status).toBe(200)
      expect(sandbox.transactions().length).toBe(before)

      // another cart is not affected
      const other = await shop.session(await shop.cart(), "pp_payin_default", { method: "link" })
      expect(other.data.payin_status).toBe("active")
    })

    it("a concurrent burst of one cart creates at most that many pay-ins", async () => {
      const cartId = await shop.cart()
      const collectionId = await shop.paymentCollection(cartId)
      const answers = await Promise.all(methods.map((method) => sessionFor(collectionId, { method })))
      expect(sandbox.transactions().length).toBeLessThanOrEqual(MAX_CREATIONS_PER_COLLECTION)
      expect(answers.some((a) => a.data?.code === "payin_too_many_attempts")).toBe(true)
      const rows = (await h.ledger.rows({ payment_collection_id: collectionId })) as any[]
      expect(rows.filter((r) => r.service_id).length).toBeLessThanOrEqual(MAX_CREATIONS_PER_COLLECTION)
    })
  })

  describe("errors tell the shopper fixed text with a code, never the service's words", () => {
    it("a refusal by the service", async () => {
      sandbox.setFaults([{ route: "POST /payment/trading/pay-in", status: 400, code: "TRADER_POOL_DB3_EMPTY", count: 1 }])
      const error = await shop.sessionError(await shop.cart(), "pp_payin_default")
      expect(error.status).toBe(400)
      expect(error.data.code).toBe("payin_rejected")
      expect(error.data.message).toMatch(/refused this payment.*\(payin_rejected\)$/)
      for (const leak of ["TRADER_POOL_DB3_EMPTY", "fault injected", "/payment/trading", sandbox.url, KEY]) {
        expect([leak, JSON.stringify(error.data).includes(leak)]).toEqual([leak, false])
      }
      // the merchant still sees the service's answer on the ledger
      const [failed] = await h.ledger.rows({ status: "failed" })
      expect(failed.last_error).toMatch(/TRADER_POOL_DB3_EMPTY/)
    })

    it("no requisites left, in the service's words", async () => {
      sandbox.setFaults([{ route: "POST /payment/trading/pay-in", status: 409, code: "REQUISITES_UNAVAILABLE", count: 1 }])
      const error = await shop.sessionError(await shop.cart(), "pp_payin_default")
      expect(error.status).toBe(400)
      expect(error.data.code).toBe("payin_requisites_unavailable")
      expect(error.data.message).toMatch(/No payment requisites are available/)
      expect(error.data.message).not.toMatch(/fault injected|REQUISITES_UNAVAILABLE/)
    })
  })

  it("GET /hooks/payin/:id answers the same for a configured instance and an unknown id", async () => {
    const get = async (id: string) => {
      const res = await request(`${api.defaults.baseURL}/hooks/payin/${id}`)
      return { status: res.statusCode, body: await res.body.text() }
    }
    const known = await get("default")
    const unknown = await get("nope")
    expect(known).toEqual(unknown)
    for (const word of ["default", "pp_payin", "configured", "unknown_provider"]) {
      expect(known.body).not.toContain(word)
    }
  })
})
