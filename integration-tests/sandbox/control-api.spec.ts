import { errors } from "undici"
import { request } from "undici"
import { startSandbox, type RunningSandbox } from "../../src/sandbox"
import { API_KEY, call, hmacHex, ISO_MS, payInBody, sandboxUnderTest, WebhookReceiver } from "./helpers"

describe("sandbox control API: clock, merchant, faults, listings", () => {
  const under = sandboxUnderTest({ seed: 3 }, (webhookUrl) => ({ paymentWindowSeconds: 900, webhookUrl }))
  const { create } = under
  let sandbox: RunningSandbox, base: string, receiver: WebhookReceiver
  beforeAll(() => void ({ sandbox, base, receiver } = under))
  const advance = (seconds: number) => call(base, "POST", "/_sandbox/clock/advance", { apiKey: null, body: { seconds } })

  describe("clock and payment window", () => {
    it("cancels an active transaction once the clock passes its window (default 900 s), with a webhook", async () => {
      const tx = await create({ extra: { externalTransactionId: "exp-1" } })
      const paid = await create({ fiatAmount: 42 })
      await call(base, "POST", `/_sandbox/transactions/${paid.id}/pay`, { apiKey: null })
      await receiver.waitFor(1)

      const before = await call(base, "GET", "/_sandbox/clock", { apiKey: null })
      const moved = await advance(899)
      expect(moved.status).toBe(200)
      expect(moved.body.offsetMs - before.body.offsetMs).toBe(899_000)
      expect(moved.body.now).toMatch(ISO_MS)
      expect((await call(base, "GET", `/payment/trading/${tx.id}`)).body.status).toBe("active")

      await advance(2)
      const after = await call(base, "GET", `/payment/trading/${tx.id}`)
      expect(after.body.status).toBe("canceled")
      expect((await call(base, "GET", "/payment/trading/external/exp-1")).body.status).toBe("canceled")
      const hooks = await receiver.waitFor(2)
      expect(hooks[1].body.id).toBe(tx.id)
      expect(hooks[1].body.status).toBe("canceled")
      expect(hooks[1].signature).toBe(hmacHex(hooks[1].rawBody, API_KEY))
      // The closed one is untouched by expiry.
      expect(sandbox.transaction(paid.id)!.status).toBe("closed")
      await sandbox.webhooksIdle()
      expect(receiver.received).toHaveLength(2)
    })

    it("stamps createdAt with the sandbox clock and applies a new payment window to new transactions", async () => {
      await advance(3600)
      const clock = (await call(base, "GET", "/_sandbox/clock", { apiKey: null })).body
      const tx = await create()
      expect(Date.parse(tx.createdAt)).toBeGreaterThanOrEqual(Date.parse(clock.now))
      expect(Date.parse(tx.createdAt) - Date.now()).toBeGreaterThan(3_500_000)

      await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { paymentWindowSeconds: 60 } })
      const short = await create({ fiatAmount: 61 })
      await advance(59)
      expect(sandbox.transaction(short.id)!.status).toBe("active")
      expect(sandbox.transaction(tx.id)!.status).toBe("active")
      await advance(2)
      expect(sandbox.transaction(short.id)!.status).toBe("canceled")
      expect(sandbox.transaction(tx.id)!.status).toBe("active")
    })

    it("rejects a clock that would move backwards or a bad body", async () => {
      expect((await advance(-1)).status).toBe(400)
      expect((await call(base, "POST", "/_sandbox/clock/advance", { apiKey: null, body: {} })).status).toBe(400)
    })

    it("expires through the periodic sweep, without any read, and fires the webhook", async () => {
      const hookReceiver = await new WebhookReceiver().start()
      const quick = await startSandbox({
        port: 0,
        apiKey: API_KEY,
        webhookUrl: hookReceiver.url,
        paymentWindowSeconds: 1,
        sweepIntervalMs: 50,
      })
      try {
        const tx = (await call(quick.url, "POST", "/payment/trading/pay-in", { body: payInBody() })).body
        const [hook] = await hookReceiver.waitFor(1, 5_000)
        expect(hook.body.id).toBe(tx.id)
        expect(hook.body.status).toBe("canceled")
        expect(hook.signature).toBe(hmacHex(hook.rawBody, API_KEY))
      } finally {
        await quick.close()
        await hookReceiver.stop()
      }
    })
  })

  describe("merchant settings", () => {
    it("reads and updates settings without ever showing the API key", async () => {
      const read = await call(base, "GET", "/_sandbox/merchant", { apiKey: null })
      expect(read.status).toBe(200)
      expect(read.body).toMatchObject({
        webhookUrl: receiver.url,
        paymentWindowSeconds: 900,
        whitelist: [],
        successUrl: null,
        failureUrl: null,
        supportLink: null,
        externalPaymentPageUrl: true,
        webhookMode: "in_order",
      })
      expect("apiKey" in read.body).toBe(false)
      const updated = await call(base, "PUT", "/_sandbox/merchant", {
        apiKey: null,
        body: {
          successUrl: "https://shop.example.test/ok",
          failureUrl: "https://shop.example.test/fail",
          supportLink: "mailto:help@shop.example.test",
          webhookTimeoutMs: 5000,
        },
      })
      expect(updated.status).toBe(200)
      expect(updated.body).toMatchObject({
        successUrl: "https://shop.example.test/ok",
        failureUrl: "https://shop.example.test/fail",
        supportLink: "mailto:help@shop.example.test",
        webhookTimeoutMs: 5000,
        paymentWindowSeconds: 900,
      })
      const reset = await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { successUrl: null, failureUrl: null, supportLink: null } })
      expect(reset.body.successUrl).toBeNull()
    })

    it("rejects unknown keys and invalid values with 400", async () => {
      for (const body of [
        { paymentWindow: 10 },
        { paymentWindowSeconds: 0 },
        { webhookUrl: "ftp://x" },
        { webhookMode: "random" },
        { successUrl: "javascript:alert(1)" },
      ]) {
        const res = await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body })
        expect(res.status).toBe(400)
        expect(res.body.code).toBe("VALIDATION_ERROR")
      }
      expect(sandbox.merchant().paymentWindowSeconds).toBe(900)
    })
  })

  describe("listings and reset", () => {
    it("lists all transactions and resets state", async () => {
      const a = await create()
      const b = await create({ fiatAmount: 9 })
      const list = await call(base, "GET", "/_sandbox/transactions", { apiKey: null })
      expect(list.status).toBe(200)
      expect(list.body.map((t: any) => t.id).sort()).toEqual([a.id, b.id].sort())
      expect(list.body.find((t: any) => t.id === a.id)).toEqual(a)
      const one = await call(base, "GET", `/_sandbox/transactions/${b.id}`, { apiKey: null })
      expect(one.body).toEqual(b)
      expect((await call(base, "POST", "/_sandbox/reset", { apiKey: null })).status).toBe(200)
      expect((await call(base, "GET", "/_sandbox/transactions", { apiKey: null })).body).toEqual([])
      expect((await call(base, "GET", `/payment/trading/${a.id}`)).status).toBe(404)
    })
  })

  describe("next pay-in override", () => {
    const nextPayIn = (method: "GET" | "POST" | "DELETE", body?: unknown) =>
      call(base, method, "/_sandbox/next-payin", { apiKey: null, ...(body !== undefined ? { body } : {}) })

    afterEach(async () => {
      await nextPayIn("DELETE")
    })

    it("overrides the amount only: fiatAmount and the crypto amounts follow, the currency stays", async () => {
      const queued = await nextPayIn("POST", { fiatAmount: "1929.00" })
      expect(queued.status).toBe(200)
      expect(queued.body).toEqual({ pending: [{ fiatAmount: "1929.00", count: 1 }] })
      const tx = await create({ fiatAmount: 1500, fiatCurrency: "RUB" })
      // 1929.00 RUB at 96.45 = 20 USDT; fee 2.5 %.
      expect(tx).toMatchObject({
        fiatAmount: "1929.00",
        fiatCurrency: "RUB",
        currencyRate: "96.45",
        cryptoAmount: "20000000",
        merchantFee: "500000",
        status: "active",
      })
      expect(tx.requisite.fiatCurrency).toBe("RUB")
      expect((await call(base, "GET", `/payment/trading/${tx.id}`)).body).toEqual(tx)
      expect((await nextPayIn("GET")).body).toEqual({ pending: [] })
      // Consumed: the next creation is normal again.
      expect(await create({ fiatAmount: 1500 })).toMatchObject({ fiatAmount: "1500.00", fiatCurrency: "RUB" })
    })

    it("overrides the currency only: the amount stays, rate and crypto amounts are the other currency's", async () => {
      expect((await nextPayIn("POST", { fiatCurrency: "usd" })).body).toEqual({ pending: [{ fiatCurrency: "USD", count: 1 }] })
      const tx = await create({ fiatAmount: 1500, fiatCurrency: "RUB", bank: "sberbank" })
      expect(tx).toMatchObject({
        fiatAmount: "1500.00",
        fiatCurrency: "USD",
        currencyRate: "1.00",
        cryptoAmount: "1500000000",
        merchantFee: "37500000",
        bank: "wise",
      })
      expect(tx.requisite.fiatCurrency).toBe("USD")
    })

    it("overrides both (a number amount is accepted), also for a fiatAmountRange request", async () => {
      await nextPayIn("POST", { fiatAmount: 92, fiatCurrency: "EUR" })
      const tx = await create({ fiatAmount: undefined, fiatAmountRange: { min: 1000, max: 2000 }, fiatCurrency: "RUB" })
      expect(tx).toMatchObject({ fiatAmount: "92.00", fiatCurrency: "EUR", currencyRate: "0.92", cryptoAmount: "100000000", merchantFee: "2500000" })
    })

    it("applies an override with count 2 to two creations, FIFO before the next one, then creation is normal", async () => {
      await nextPayIn("POST", { fiatAmount: "10.00", count: 2 })
      const both = await nextPayIn("POST", { fiatCurrency: "KZT" })
      expect(both.body).toEqual({ pending: [{ fiatAmount: "10.00", count: 2 }, { fiatCurrency: "KZT", count: 1 }] })
      const first = await create({ fiatAmount: 100 })
      expect((await nextPayIn("GET")).body.pending[0]).toEqual({ fiatAmount: "10.00", count: 1 })
      const second = await create({ fiatAmount: 200 })
      const third = await create({ fiatAmount: 300 })
      const fourth = await create({ fiatAmount: 400 })
      expect([first, second, third, fourth].map((t) => [t.fiatAmount, t.fiatCurrency])).toEqual([
        ["10.00", "RUB"],
        ["10.00", "RUB"],
        ["300.00", "KZT"],
        ["400.00", "RUB"],
      ])
      expect((await nextPayIn("GET")).body).toEqual({ pending: [] })
    })

    it("lists with GET, clears with DELETE and with POST /_sandbox/reset", async () => {
      expect((await nextPayIn("GET")).body).toEqual({ pending: [] })
      await nextPayIn("POST", { fiatAmount: "5.55", fiatCurrency: "uzs", count: 3 })
      const listed = await nextPayIn("GET")
      expect(listed.status).toBe(200)
      expect(listed.body).toEqual({ pending: [{ fiatAmount: "5.55", fiatCurrency: "UZS", count: 3 }] })
      const cleared = await nextPayIn("DELETE")
      expect(cleared.status).toBe(200)
      expect(cleared.body).toEqual({ pending: [] })
      expect(await create({ fiatAmount: 77 })).toMatchObject({ fiatAmount: "77.00", fiatCurrency: "RUB" })

      await nextPayIn("POST", { fiatAmount: 1 })
      expect((await call(base, "POST", "/_sandbox/reset", { apiKey: null })).status).toBe(200)
      expect((await nextPayIn("GET")).body).toEqual({ pending: [] })
      expect(await create({ fiatAmount: 78 })).toMatchObject({ fiatAmount: "78.00" })
    })

    it("rejects invalid bodies with 400 VALIDATION_ERROR naming the field, and queues nothing", async () => {
      const cases: [unknown, string][] = [
        [{}, "fiatAmount"],
        [{ count: 2 }, "fiatAmount"],
        [{ fiatAmount: "12.5" }, "fiatAmount"],
        [{ fiatAmount: 0 }, "fiatAmount"],
        [{ fiatAmount: "0.00" }, "fiatAmount"],
        [{ fiatCurrency: "XXX" }, "fiatCurrency"],
        [{ fiatCurrency: "RUB", count: 0 }, "count"],
        [{ fiatCurrency: "RUB", count: 101 }, "count"],
      ]
      for (const [body, field] of cases) {
        const res = await nextPayIn("POST", body)
        expect(res.status).toBe(400)
        expect(res.body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR", message: expect.any(String) })
        expect(res.body.errors.map((e: any) => e.field)).toContain(field)
      }
      const unknownKey = await nextPayIn("POST", { fiatCurrency: "RUB", amount: 1 })
      expect(unknownKey.status).toBe(400)
      expect(unknownKey.body.code).toBe("VALIDATION_ERROR")
      const badJson = await call(base, "POST", "/_sandbox/next-payin", { apiKey: null, rawBody: "{" })
      expect(badJson.status).toBe(400)
      expect((await nextPayIn("GET")).body).toEqual({ pending: [] })
    })

    it("is not consumed by a creation that fails (validation, duplicate, exhaustion, fault, key)", async () => {
      await create({ fiatAmount: 10, extra: { externalTransactionId: "np-dup" } })
      await nextPayIn("POST", { fiatAmount: "42.00" })
      const failures = [
        await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ fiatAmount: "1500" }) }),
        await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ fiatCurrency: "XXX" }) }),
        await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ extra: { externalTransactionId: "np-dup" } }) }),
        await call(base, "POST", "/payment/trading/pay-in", { body: payInBody(), apiKey: "wrong" }),
      ]
      expect(failures.map((r) => r.status)).toEqual([400, 400, 409, 401])
      await call(base, "PUT", "/_sandbox/faults", { apiKey: null, body: [{ route: "POST /payment/trading/pay-in", status: 503, count: 1 }] })
      expect((await call(base, "POST", "/payment/trading/pay-in", { body: payInBody() })).status).toBe(503)
      expect((await nextPayIn("GET")).body).toEqual({ pending: [{ fiatAmount: "42.00", count: 1 }] })

      // Exhaustion applies to the overriding amount: fill every UZS requisite with 42.00 first.
      await call(base, "DELETE", "/_sandbox/next-payin", { apiKey: null })
      for (let i = 0; i < 3; i++) await create({ fiatAmount: 42, fiatCurrency: "UZS" })
      await nextPayIn("POST", { fiatAmount: "42.00" })
      const exhausted = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ fiatAmount: 43, fiatCurrency: "UZS" }) })
      expect(exhausted.status).toBe(422)
      expect(exhausted.body.code).toBe("REQUISITES_UNAVAILABLE")
      expect((await nextPayIn("GET")).body).toEqual({ pending: [{ fiatAmount: "42.00", count: 1 }] })

      expect(await create({ fiatAmount: 1500 })).toMatchObject({ fiatAmount: "42.00", fiatCurrency: "RUB" })
      expect((await nextPayIn("GET")).body).toEqual({ pending: [] })
    })
  })

  describe("dispute after payment", () => {
    const act = (id: string, action: string, body?: unknown) =>
      call(base, "POST", `/_sandbox/transactions/${id}/${action}`, { apiKey: null, ...(body !== undefined ? { body } : {}) })

    it("disputes a closed (paid) transaction with a webhook, then recalculates and closes it", async () => {
      const tx = await create({ fiatAmount: 2000 })
      expect((await act(tx.id, "pay")).body.status).toBe("closed")
      await receiver.waitFor(1)

      const disputed = await act(tx.id, "dispute", { fiatAmount: "1990.00" })
      expect(disputed.status).toBe(200)
      expect(disputed.body).toMatchObject({
        id: tx.id,
        status: "dispute",
        disputeMerchantFiatAmount: "1990.00",
        disputeMerchantCheckUrl: `${base}/_sandbox/transactions/${tx.id}/receipt?party=merchant`,
      })
      const [, hook] = await receiver.waitFor(2)
      expect(hook.body).toMatchObject({ id: tx.id, status: "dispute", disputeMerchantFiatAmount: "1990.00" })
      expect(hook.signature).toBe(hmacHex(hook.rawBody, API_KEY))

      const recalculated = await act(tx.id, "recalculate", { fiatAmount: "1929.00" })
      expect(recalculated.status).toBe(200)
      expect(recalculated.body).toMatchObject({ status: "re_calculation", fiatAmount: "1929.00", cryptoAmount: "20000000", merchantFee: "500000" })
      const closed = await act(tx.id, "close")
      expect(closed.status).toBe(200)
      expect(closed.body.status).toBe("closed")

      const hooks = await receiver.waitFor(4)
      expect(hooks.map((h) => h.body.status)).toEqual(["closed", "dispute", "re_calculation", "closed"])
      expect(hooks.every((h) => h.signature === hmacHex(h.rawBody, API_KEY))).toBe(true)
      await sandbox.webhooksIdle()
      expect(sandbox.deliveries().filter((d) => d.transactionId === tx.id).map((d) => d.status)).toEqual([
        "closed",
        "dispute",
        "re_calculation",
        "closed",
      ])
      // Closed again: it can be disputed again, nothing else.
      expect((await act(tx.id, "pay")).status).toBe(409)
      expect((await act(tx.id, "checking")).status).toBe(409)
    })

    it("goes closed -> dispute -> checking -> closed too", async () => {
      const tx = await create({ fiatAmount: 300 })
      await act(tx.id, "pay")
      expect((await act(tx.id, "dispute")).body.status).toBe("dispute")
      expect((await act(tx.id, "checking")).body.status).toBe("checking")
      expect((await act(tx.id, "close")).body.status).toBe("closed")
      const hooks = await receiver.waitFor(4)
      expect(hooks.map((h) => h.body.status)).toEqual(["closed", "dispute", "checking", "closed"])
    })
  })

  describe("what the merchant was told: the lookup log", () => {
    it("logs each lookup answered (by id, by external id) with the status it said, not one the client gave up on; DELETE and reset clear it", async () => {
      const tx = await create({ extra: { externalTransactionId: "look-1" } })
      expect((await call(base, "GET", `/payment/trading/${tx.id}`)).status).toBe(200)
      await call(base, "POST", `/_sandbox/transactions/${tx.id}/pay`, { apiKey: null })
      expect((await call(base, "GET", "/payment/trading/external/look-1")).status).toBe(200)
      // an unknown id, a wrong key and a control API read are no lookups answered to the merchant
      expect((await call(base, "GET", "/payment/trading/external/nope")).status).toBe(404)
      expect((await call(base, "GET", `/payment/trading/${tx.id}`, { apiKey: "wrong" })).status).toBe(401)
      await call(base, "GET", `/_sandbox/transactions/${tx.id}`, { apiKey: null })
      // answered after the client's deadline: the merchant never read it
      await call(base, "PUT", "/_sandbox/faults", { apiKey: null, body: [{ route: "GET /payment/trading/{id}", delayMs: 2500, count: 1 }] })
      // (undici's timers are coarse: a deadline well below the delay)
      const late = request(`${base}/payment/trading/${tx.id}`, { headers: { "x-api-key": API_KEY }, headersTimeout: 300 })
      await expect(late).rejects.toBeInstanceOf(errors.HeadersTimeoutError)
      await new Promise((r) => setTimeout(r, 3_000))

      const log = await call(base, "GET", "/_sandbox/lookups", { apiKey: null })
      expect(log.status).toBe(200)
      expect(log.body).toEqual([
        { transactionId: tx.id, by: "id", status: "active", fiatAmount: "1500.00", fiatCurrency: "RUB", time: expect.stringMatching(ISO_MS) },
        { transactionId: tx.id, by: "external", status: "closed", fiatAmount: "1500.00", fiatCurrency: "RUB", time: expect.stringMatching(ISO_MS) },
      ])
      expect(sandbox.lookups()).toEqual(log.body)
      expect((await call(base, "DELETE", "/_sandbox/lookups", { apiKey: null })).body).toEqual([])
      await call(base, "GET", `/payment/trading/${tx.id}`)
      expect(sandbox.lookups()).toHaveLength(1)
      await call(base, "POST", "/_sandbox/reset", { apiKey: null })
      expect(sandbox.lookups()).toEqual([])
    })
  })

  describe("paid as another amount or in another currency", () => {
    const pay = (id: string, body?: unknown) => call(base, "POST", `/_sandbox/transactions/${id}/pay`, { apiKey: null, ...(body !== undefined ? { body } : {}) })

    it("converts the amount at the sandbox's rates when only the currency is given, and says so in the webhook", async () => {
      const tx = await create({ fiatAmount: 1500 })
      const paid = await pay(tx.id, { fiatCurrency: "usd" })
      expect(paid.status).toBe(200)
      // 1,500.00 RUB at 96.45 per USDT is 15.55 USD at 1.00; crypto and fee follow at the new rate
      expect(paid.body).toMatchObject({ status: "closed", fiatAmount: "15.55", fiatCurrency: "USD", currencyRate: "1.00", cryptoAmount: "15550000", merchantFee: "388750" })
      const [hook] = await receiver.waitFor(1)
      expect(hook.body).toMatchObject({ id: tx.id, status: "closed", fiatAmount: "15.55", fiatCurrency: "USD" })
    })

    it("takes another amount (with or without a currency); refuses an unserved currency, a bad amount or an unknown key", async () => {
      const tx = await create({ fiatAmount: 1500 })
      expect((await pay(tx.id, { fiatCurrency: "XYZ" })).status).toBe(400)
      expect((await pay(tx.id, { fiatAmount: "0.00" })).status).toBe(400)
      expect((await pay(tx.id, { fiatAmount: "12.345" })).status).toBe(400)
      expect((await pay(tx.id, { amount: 1 })).status).toBe(400)
      expect(sandbox.transaction(tx.id)!.status).toBe("active")
      expect((await pay(tx.id, { fiatAmount: "1400.00" })).body).toMatchObject({ status: "closed", fiatAmount: "1400.00", fiatCurrency: "RUB" })
      const other = await create({ fiatAmount: 1501 })
      expect((await pay(other.id, { fiatAmount: "20.00", fiatCurrency: "EUR" })).body).toMatchObject({ fiatAmount: "20.00", fiatCurrency: "EUR", currencyRate: "0.92" })
    })
  })

  describe("faults", () => {
    afterEach(async () => {
      await call(base, "DELETE", "/_sandbox/faults", { apiKey: null })
    })

    it("answers with the injected status for the next N requests of a route only", async () => {
      const put = await call(base, "PUT", "/_sandbox/faults", {
        apiKey: null,
        body: { faults: [{ route: "POST /payment/trading/pay-in", status: 503, count: 2 }] },
      })
      expect(put.status).toBe(200)
      expect(put.body.faults).toEqual([{ route: "POST /payment/trading/pay-in", status: 503, count: 2, probability: 1 }])
      for (let i = 0; i < 2; i++) {
        const res = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody() })
        expect(res.status).toBe(503)
        expect(res.body).toEqual({ statusCode: 503, code: "SANDBOX_FAULT", message: expect.any(String) })
      }
      // Other routes were never affected; after two hits the fault is gone.
      expect((await call(base, "GET", "/payment/trading/banks")).status).toBe(200)
      expect((await call(base, "GET", "/_sandbox/faults", { apiKey: null })).body.faults).toEqual([])
      expect((await call(base, "POST", "/payment/trading/pay-in", { body: payInBody() })).status).toBe(201)
      expect(sandbox.transactions()).toHaveLength(1)
    })

    it("injects by probability: 1 always until DELETE, 0 never", async () => {
      await call(base, "PUT", "/_sandbox/faults", {
        apiKey: null,
        body: [
          { route: "GET /payment/trading/banks", status: 500, probability: 0 },
          { route: "GET /payment/trading/currency", status: 429, code: "RATE_LIMITED", probability: 1 },
        ],
      })
      for (let i = 0; i < 5; i++) {
        expect((await call(base, "GET", "/payment/trading/banks")).status).toBe(200)
        const limited = await call(base, "GET", "/payment/trading/currency")
        expect(limited.status).toBe(429)
        expect(limited.body.code).toBe("RATE_LIMITED")
      }
      const cleared = await call(base, "DELETE", "/_sandbox/faults", { apiKey: null })
      expect(cleared.status).toBe(200)
      expect(cleared.body).toEqual({ faults: [] })
      expect((await call(base, "GET", "/payment/trading/currency")).status).toBe(200)
    })

    it("injects a fraction of failures with 0 < probability < 1", async () => {
      await call(base, "PUT", "/_sandbox/faults", { apiKey: null, body: [{ route: "*", status: 502, probability: 0.5 }] })
      const statuses: number[] = []
      for (let i = 0; i < 40; i++) statuses.push((await call(base, "GET", "/payment/trading/banks")).status)
      expect(statuses).toContain(502)
      expect(statuses).toContain(200)
    })

    it("resets the connection without an answer", async () => {
      await call(base, "PUT", "/_sandbox/faults", { apiKey: null, body: [{ route: "GET /payment/trading/{id}", reset: true, count: 1 }] })
      const tx = await create()
      await expect(call(base, "GET", `/payment/trading/${tx.id}`)).rejects.toThrow()
      expect((await call(base, "GET", `/payment/trading/${tx.id}`)).status).toBe(200)
    })

    it("delays a request past a client's timeout, then lets it through normally once cleared", async () => {
      await call(base, "PUT", "/_sandbox/faults", {
        apiKey: null,
        body: [{ route: "GET /payment/trading/external/{id}", delayMs: 5000 }],
      })
      await create({ extra: { externalTransactionId: "slow-1" } })
      const slow = request(`${base}/payment/trading/external/slow-1`, { headers: { "x-api-key": API_KEY }, headersTimeout: 300 })
      await expect(slow).rejects.toBeInstanceOf(errors.HeadersTimeoutError)
      await call(base, "DELETE", "/_sandbox/faults", { apiKey: null })
      const fast = await request(`${base}/payment/trading/external/slow-1`, { headers: { "x-api-key": API_KEY }, headersTimeout: 3000 })
      expect(fast.statusCode).toBe(200)
      await fast.body.dump()
    })

    it("delays and then answers normally when the fault has only a delay", async () => {
      await call(base, "PUT", "/_sandbox/faults", { apiKey: null, body: [{ route: "GET /payment/trading/banks", delayMs: 50, count: 1 }] })
      const res = await call(base, "GET", "/payment/trading/banks")
      expect(res.status).toBe(200)
      expect(Array.isArray(res.body)).toBe(true)
      expect((await call(base, "GET", "/_sandbox/faults", { apiKey: null })).body.faults).toEqual([])
    })

    it("rejects invalid fault definitions", async () => {
      for (const body of [
        [{ route: "GET /nowhere", status: 500 }],
        [{ route: "*" }],
        [{ status: 200 }],
        [{ status: 500, reset: true }],
        [{ status: 500, probability: 2 }],
      ]) {
        const res = await call(base, "PUT", "/_sandbox/faults", { apiKey: null, body })
        expect(res.status).toBe(400)
        expect(res.body.code).toBe("VALIDATION_ERROR")
      }
    })
  })
})
