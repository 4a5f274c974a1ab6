// The plugin's store API (GET /store/payin/banks, GET /store/payin/status) on a real Medusa on
// PostgreSQL, with the sandbox payment service over HTTP and the store API driven as a
// storefront would (publishable key), the sandbox's control API playing the shopper.
import { request } from "undici"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { RunningSandbox } from "../../src/sandbox"
import type { PayinBanksResponse, PayinStatusResponse, PayinStoreError } from "../../src/storefront/types"
import { storeSpec } from "../support/harness"
import { control, payinsOfSession } from "../support/sandbox"
import { Storefront, foreignKeyHeaders as foreignHeaders } from "../support/storefront"

jest.setTimeout(180_000)
process.env.PAYIN_ENCRYPTION_KEY ??= "store-api-encryption-secret-0123456789"

const KEY = "test-key-store-api-0123456789"
const SECOND_KEY = "test-key-store-second-987654"
const RUB_BANKS = ["sberbank", "tinkoff", "vtb", "alfabank", "mts"]
const ALL_METHODS = ["account", "card", "deeplink", "link", "mobile_comm", "phone_number", "qr", "quasi"]

storeSpec({ key: KEY, secondKey: SECOND_KEY, reloadSettings: true }, (h) => {
  const { api, getContainer } = h
  let sandbox: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
  beforeEach(() => void ({ sandbox, shop, admin } = h))

  /** A store-API GET that resolves with the answer whatever its status. */
  const storeGet = async <T = any>(url: string, headers: Record<string, string> = shop.headers.headers) => {
    const res = await api.get(url, { headers, validateStatus: () => true })
    // a 4xx/5xx carries the error shape instead
    return { status: res.status as number, data: res.data as T & Partial<PayinStoreError>, text: JSON.stringify(res.data) }
  }
  const banks = (query: string, headers?: Record<string, string>) => storeGet<PayinBanksResponse>(`/store/payin/banks?${query}`, headers)
  const status = (query: string, headers?: Record<string, string>) => storeGet<PayinStatusResponse>(`/store/payin/status?${query}`, headers)

  /** What the status shows of a pay-in that ended: final, nothing left to pay with, no time left. */
  const ended = (state: string, serviceStatus: string) => ({
    state,
    service_status: serviceStatus,
    final: true,
    requisite: null,
    payment_page_url: null,
    seconds_left: 0,
  })

  /** Polls the status until `done` holds (the refresh on poll and webhooks take a moment). */
  const statusUntil = async (query: string, done: (s: PayinStatusResponse) => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const res = await status(query)
      expect(res.status).toBe(200)
      if (done(res.data) || Date.now() > deadline) return res.data
      await new Promise((r) => setTimeout(r, 200))
    }
  }

  const providerSettings = (id: string, patch: Record<string, unknown>) => api.post(`/admin/payin/settings/${id}`, patch, admin)
  const pluginSettings = (patch: Record<string, unknown>) => api.post("/admin/payin/settings", patch, admin)

  /** A cart with a pay-in session, as the storefront makes it. */
  const cartWithPayin = () => h.cartWithPayin("pp_payin_default", { method: "card" })

  /** A publishable key of a sales channel other than the seeded storefront's. */
  const foreignKeyHeaders = () => foreignHeaders(getContainer(), shop)

  describe("GET /store/payin/banks", () => {
    it("lists the RUB banks of a RUB cart with the union of their methods", async () => {
      const cartId = await shop.cart()
      const res = await banks(`cart_id=${cartId}`)
      expect(res.status).toBe(200)
      expect(res.data).toEqual({
        provider_id: "pp_payin_default",
        currency: "RUB",
        available: true,
        banks: RUB_BANKS.map((name) => ({ name, methods: expect.any(Array) })),
        methods: ALL_METHODS,
        stale: false,
        fetched_at: expect.any(String),
      })
      expect(res.data.banks.find((b) => b.name === "tinkoff")?.methods).toEqual(["card", "phone_number", "qr", "deeplink"])
      expect(Date.parse(res.data.fetched_at)).toBeLessThanOrEqual(Date.now())

      // another configured instance, on request
      const other = await banks(`cart_id=${cartId}&provider_id=pp_payin_second`)
      expect(other.status).toBe(200)
      expect(other.data).toMatchObject({ provider_id: "pp_payin_second", currency: "RUB", available: true })
      expect(other.data.banks.map((b) => b.name)).toEqual(RUB_BANKS)
    })

    it("lists by currency code in any case; an unsupported currency is not available", async () => {
      const kzt = await banks("currency_code=kzt")
      expect(kzt.status).toBe(200)
      expect(kzt.data).toMatchObject({
        provider_id: "pp_payin_default",
        currency: "KZT",
        available: true,
        banks: [
          { name: "kaspi", methods: ["card", "phone_number"] },
          { name: "halyk", methods: ["card", "account"] },
        ],
        methods: ["account", "card", "phone_number"],
      })
      const gbp = await banks("currency_code=GBP")
      expect(gbp.status).toBe(200)
      expect(gbp.data).toMatchObject({ currency: "GBP", available: false, banks: [], methods: [] })
    })

    it("narrows the list to the banks and methods the merchant allows in the admin", async () => {
      const saved = await providerSettings("default", { allowedBanks: ["tinkoff", "vtb", "kaspi"], allowedMethods: ["qr", "card"] })
      expect(saved.status).toBe(200)
      const res = await banks("currency_code=rub")
      expect(res.data).toMatchObject({
        available: true,
        banks: [
          { name: "tinkoff", methods: ["card", "qr"] },
          { name: "vtb", methods: ["card"] },
        ],
        methods: ["card", "qr"],
      })
      await providerSettings("default", { allowedMethods: ["mobile_comm"] })
      expect((await banks("currency_code=rub")).data).toMatchObject({ available: false, banks: [], methods: [] })
      await providerSettings("default", { allowedBanks: null, allowedMethods: null })
      expect((await banks("currency_code=rub")).data.banks.map((b) => b.name)).toEqual(RUB_BANKS)
    })

    it("serves the list from its cache while the service fails", async () => {
      const first = await banks("currency_code=rub")
      expect(first.status).toBe(200)
      // one failure armed on the service's banks route: the store API must not even reach it
      sandbox.setFaults([{ route: "GET /payment/trading/banks", status: 500, count: 1 }])
      const cached = await banks("currency_code=rub")
      expect(cached.status).toBe(200)
      expect(cached.data).toEqual(first.data)
      const direct = await request(`${sandbox.url}/payment/trading/banks`, { headers: { "x-api-key": KEY } })
      await direct.body.text()
      expect(direct.statusCode).toBe(500) // the fault was still armed: the list came from memory
    })

    it("answers 503 when the service fails and nothing is cached, without the key or the URL", async () => {
      const deadUrl = "http://127.0.0.1:9/payin-dead"
      // another base URL is another cache entry: nothing cached for it
      // another origin: the key goes with it in the same save (README: the key is bound to an origin)
      await providerSettings("default", { baseUrl: deadUrl, apiKey: KEY })
      const res = await banks("currency_code=rub")
      expect(res.status).toBe(503)
      expect(res.data).toEqual({ type: "payin_unavailable", code: "payin_unavailable", message: expect.any(String) })
      expect(res.text).not.toContain(KEY)
      expect(res.text).not.toContain("127.0.0.1")
      expect(res.text).not.toContain(sandbox.url)

      await providerSettings("default", { baseUrl: null, apiKey: null })
      const back = await banks("currency_code=rub")
      expect(back.status).toBe(200)
      expect(back.data.banks.map((b) => b.name)).toEqual(RUB_BANKS)
    })

    it("refuses invalid queries with 400 naming the field, unknown carts and providers with 404", async () => {
      const fieldsOf = (res: { data: Partial<PayinStoreError> }) => res.data.fields?.map((f) => f.path)

      const missing = await banks("")
      expect(missing.status).toBe(400)
      expect(missing.data).toMatchObject({ type: "invalid_data", message: expect.stringContaining("cart_id") })
      expect(fieldsOf(missing)).toEqual(["cart_id", "currency_code"])

      const both = await banks("cart_id=cart_x&currency_code=rub")
      expect(both.status).toBe(400)
      expect(fieldsOf(both)).toEqual(["cart_id", "currency_code"])

      const badCurrency = await banks("currency_code=rubles")
      expect(badCurrency.status).toBe(400)
      expect(badCurrency.data.fields).toEqual([{ path: "currency_code", message: expect.stringContaining("3-letter") }])

      const twice = await banks("currency_code=rub&currency_code=kzt")
      expect(twice.status).toBe(400)
      expect(fieldsOf(twice)).toEqual(["currency_code"])

      const unknownParam = await banks("currency_code=rub&page=2")
      expect(unknownParam.status).toBe(400)
      expect(unknownParam.data.message).toContain("page")

      const unknownCart = await banks("cart_id=cart_01NOTACART")
      expect(unknownCart.status).toBe(404)
      expect(unknownCart.data).toEqual({ type: "not_found", message: expect.stringContaining("cart_01NOTACART") })

      for (const providerId of ["pp_payin_nope", "pp_system_default"]) {
        const unknownProvider = await banks(`currency_code=rub&provider_id=${providerId}`)
        expect(unknownProvider.status).toBe(404)
        expect(unknownProvider.data).toMatchObject({ type: "not_found" })
      }

      const status400 = await status("cart_id=a&order_id=b")
      expect(status400.status).toBe(400)
      expect(fieldsOf(status400)).toEqual(["cart_id", "order_id"])
      expect(fieldsOf(await status(""))).toEqual(["cart_id", "order_id"])

      // Medusa's own check: a publishable key is required on every /store route
      const noKey = await storeGet("/store/payin/banks?currency_code=rub", {})
      expect(noKey.status).toBe(400)
    })
  })

  describe("GET /store/payin/status", () => {
    it("follows a checkout: awaiting payment, order placed, paid by webhook and captured", async () => {
      const { cartId, session, payin } = await cartWithPayin()

      const before = await status(`cart_id=${cartId}`)
      expect(before.status).toBe(200)
      expect(before.data).toEqual({
        cart_id: cartId,
        order: null,
        payin: {
          provider_id: "pp_payin_default",
          payin_id: payin.id,
          state: "awaiting_payment",
          service_status: "active",
          final: false,
          amount: "1790.00",
          currency: "RUB",
          paid_amount: null,
          method: "card",
          bank: session.data.bank,
          requisite: session.data.requisite,
          payment_page_url: session.data.payment_page_url,
          created_at: expect.any(String),
          expires_at: session.data.expires_at,
          seconds_left: expect.any(Number),
          paid_at: null,
        },
        pay_again: null,
        server_time: expect.any(String),
        view_tag: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      })
      expect(before.data.payin!.seconds_left).toBeGreaterThan(0)
      expect(before.data.payin!.seconds_left).toBeLessThanOrEqual(900)

      const completed = await shop.complete(cartId)
      expect(completed.data.type).toBe("order")
      const orderId = completed.data.order.id
      const placed = await status(`cart_id=${cartId}`)
      expect(placed.data.order).toEqual({
        id: orderId,
        display_id: completed.data.order.display_id,
        status: "pending",
        payment_status: "awaiting",
      })
      expect(placed.data.payin).toMatchObject({ state: "awaiting_payment", payin_id: payin.id })
      // the same answer by order id, with the cart it was placed from
      const byOrder = await status(`order_id=${orderId}`)
      expect(byOrder.data).toMatchObject({ cart_id: cartId, order: placed.data.order, payin: { payin_id: payin.id } })

      await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
      await h.deliver()
      const paid = await status(`cart_id=${cartId}`)
      expect(paid.data.payin).toMatchObject({ ...ended("paid", "closed"), amount: "1790.00", paid_amount: null })
      expect(Date.parse(paid.data.payin!.paid_at!)).toBeGreaterThan(Date.parse(paid.data.payin!.created_at))
      expect(paid.data.order).toMatchObject({ id: orderId, payment_status: "captured" })
    })

    it("shows a pay-in that expired unpaid as expired, its order canceled", async () => {
      const { cartId, payin } = await cartWithPayin()
      const orderId = (await shop.complete(cartId)).data.order.id
      await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
      await control(sandbox, "GET", `/_sandbox/transactions/${payin.id}`) // expiry is also applied on read
      await h.deliver()

      const res = await status(`order_id=${orderId}`)
      expect(res.data.payin).toMatchObject({ ...ended("expired", "canceled"), paid_at: null })
      expect(res.data.order).toMatchObject({ id: orderId, status: "canceled", payment_status: "canceled" })
    })

    it("looks a pay-in up on poll when its webhook is lost", async () => {
      // the reconciliation job must not get there first: hold its lock for this test (the job,
      // ticking every 5 s, may hold it already for its interval: take it over)
      const locking = getContainer().resolve(Modules.LOCKING)
      const pg = getContainer().resolve(ContainerRegistrationKeys.PG_CONNECTION) as any
      for (let attempt = 0; ; attempt++) {
        await pg.raw("delete from locking where id = 'payin:reconcile' and owner_id <> 'store-api-spec'")
        const taken = await locking.acquire("payin:reconcile", { ownerId: "store-api-spec", expire: 600 }).then(
          () => true,
          () => false
        )
        if (taken) break
        if (attempt > 5) throw new Error("could not hold the reconciliation job's lock")
      }
      try {
        sandbox.updateMerchant({ webhookUrl: null })
        expect((await pluginSettings({ reconcileAfterSeconds: 0 })).status).toBe(200)
        const { cartId, payin } = await cartWithPayin()
        const orderId = (await shop.complete(cartId)).data.order.id
        await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
        await h.deliver()
        expect(sandbox.deliveries().filter((d) => d.body.includes(payin.id))).toHaveLength(0)

        const res = await statusUntil(`cart_id=${cartId}`, (s) => s.payin?.state === "paid")
        expect(res.payin).toMatchObject({ state: "paid", final: true, requisite: null })
        expect(res.order).toMatchObject({ id: orderId, payment_status: "captured" })
        const row = await h.ledger.row({ service_id: payin.id })
        const { history } = await h.ledger.detail(row.id)
        expect(history.find((h: any) => h.to_status === "closed")?.source).toBe("store")
      } finally {
        await pluginSettings({ reconcileAfterSeconds: null })
        await locking.release("payin:reconcile", { ownerId: "store-api-spec" })
      }
    })

    it("answers the amount first assigned and the recalculated amount after a dispute", async () => {
      const { cartId, payin } = await cartWithPayin()
      await shop.complete(cartId)
      await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/dispute`)
      await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/recalculate`, { fiatAmount: "1700.00" })
      await h.deliver()
      const review = await status(`cart_id=${cartId}`)
      expect(review.data.payin).toMatchObject({ state: "in_review", final: false, amount: "1790.00", paid_amount: "1700.00" })
      expect(review.data.payin!.requisite).not.toBeNull()

      await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/close`)
      await h.deliver()
      const paid = await status(`cart_id=${cartId}`)
      expect(paid.data.payin).toMatchObject({ state: "paid", amount: "1790.00", paid_amount: "1700.00", requisite: null })
    })

    it("answers the amount the service picked inside a fiatAmountRange", async () => {
      await providerSettings("default", { amountPolicy: { mode: "range", tolerancePercent: 5 } })
      try {
        const { cartId, payin } = await cartWithPayin()
        const res = await status(`cart_id=${cartId}`)
        expect(res.data.payin!.amount).toBe(payin.fiatAmount)
        expect(payin.fiatAmount).not.toBe("1790.00") // the service picked another amount than the total
        expect(Number(payin.fiatAmount)).toBeGreaterThanOrEqual(1790)
        expect(Number(payin.fiatAmount)).toBeLessThanOrEqual(1879.5)
      } finally {
        await providerSettings("default", { amountPolicy: null })
      }
    })

    it("shows a pay-in whose session the cart change deleted as canceled, then the new one", async () => {
      const { cartId, payin } = await cartWithPayin()
      await shop.addItem(cartId) // Medusa deletes the session: the total changed
      const ended = await status(`cart_id=${cartId}`)
      expect(ended.data.payin).toMatchObject({ payin_id: payin.id, state: "canceled", final: true, requisite: null, payment_page_url: null })

      const session = await shop.session(cartId, "pp_payin_default")
      const [next] = payinsOfSession(sandbox, session.id)
      const current = await status(`cart_id=${cartId}`)
      expect(current.data.payin).toMatchObject({ payin_id: next.id, state: "awaiting_payment", amount: "3280.00" })
    })

    it("answers no pay-in for a cart paid with another provider", async () => {
      const cartId = await shop.cart()
      await shop.session(cartId, "pp_system_default")
      const before = await status(`cart_id=${cartId}`)
      expect(before.data).toMatchObject({ cart_id: cartId, order: null, payin: null })
      const completed = await shop.complete(cartId)
      expect(completed.data.type).toBe("order")
      const after = await status(`cart_id=${cartId}`)
      expect(after.data).toMatchObject({ cart_id: cartId, order: { id: completed.data.order.id }, payin: null })
    })

    it("answers 404 for unknown ids and for a publishable key of another sales channel", async () => {
      for (const query of ["cart_id=cart_01NOTACART", "order_id=order_01NOTANORDER"]) {
        const res = await status(query)
        expect(res.status).toBe(404)
        expect(res.data).toEqual({ type: "not_found", message: expect.any(String) })
      }
      const { cartId } = await cartWithPayin()
      const orderId = (await shop.complete(cartId)).data.order.id
      const foreign = await foreignKeyHeaders()
      for (const res of [
        await status(`cart_id=${cartId}`, foreign),
        await status(`order_id=${orderId}`, foreign),
        await banks(`cart_id=${cartId}`, foreign),
      ]) {
        expect(res.status).toBe(404)
        expect(res.data).toMatchObject({ type: "not_found" })
      }
      // the key that shares the cart's channel still sees it; a currency query needs no cart
      expect((await status(`cart_id=${cartId}`)).status).toBe(200)
      expect((await banks("currency_code=rub", foreign)).status).toBe(200)
    })

    it("never answers the API key, fees, crypto amounts or the shopper's data", async () => {
      const { cartId, payin } = await cartWithPayin()
      const { data } = await api.get(`/store/carts/${cartId}?fields=email,shipping_address.*`, shop.headers)
      const email = data.cart.email as string
      const street = data.cart.shipping_address.address_1 as string
      await shop.complete(cartId)
      await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
      await h.deliver()
      const answers = [await status(`cart_id=${cartId}`), await banks(`cart_id=${cartId}`)]
      for (const res of answers) {
        expect(res.status).toBe(200)
        for (const secret of [KEY, "merchantFee", "merchant_fee", "crypto", "currencyRate", email, street, "payerInfo", "flags"]) {
          expect(res.text).not.toContain(secret)
        }
      }
    })
  })
})
