import { BANKS, startSandbox, type RunningSandbox } from "../../src/sandbox"
import { TransactionSchema } from "../../src/client/schemas"
import { API_KEY, call, DECIMAL_2, DIGITS, ISO_MS, payInBody, UUID } from "./helpers"

describe("sandbox service API over HTTP", () => {
  let sandbox: RunningSandbox
  let base: string

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, apiKey: API_KEY, seed: 42 })
    base = sandbox.url
  })

  afterAll(async () => {
    await sandbox.close()
  })

  beforeEach(async () => {
    await call(base, "POST", "/_sandbox/reset", { apiKey: null })
  })

  function expectTransactionFormats(tx: any) {
    expect(TransactionSchema.safeParse(tx).success).toBe(true)
    expect(tx.id).toMatch(UUID)
    expect(tx.fiatAmount).toMatch(DECIMAL_2)
    expect(tx.cryptoAmount).toMatch(DIGITS)
    expect(tx.merchantFee).toMatch(DIGITS)
    expect(tx.currencyRate).toMatch(/^\d+(\.\d+)?$/)
    expect(tx.type).toBe("pay-in")
    expect(tx.cryptoCurrency).toBe(tx.cryptoCurrency.toLowerCase())
    expect(tx.cryptoCurrency).toMatch(/^[a-z]+$/)
    expect(tx.cryptoNetwork).toMatch(/^[a-z0-9]+$/)
    expect(tx.fiatCurrency).toMatch(/^[A-Z]{3}$/)
    expect(tx.payoutInvoicesUrl).toEqual([])
    expect(tx.createdAt).toMatch(ISO_MS)
    expect(new Date(tx.createdAt).toISOString()).toBe(tx.createdAt)
    expect(tx.requisite.id).toMatch(UUID)
    expect(tx.requisite.bank).toBe(tx.bank)
    expect(typeof tx.requisite.ownerName).toBe("string")
    expect(tx.requisite.ownerName.length).toBeGreaterThan(2)
    expect(typeof tx.requisite.requisites).toBe("string")
    expect(tx.requisite.requisites.length).toBeGreaterThan(5)
    expect(tx.requisite.fiatCurrency).toBe(tx.fiatCurrency)
    expect(Object.prototype.hasOwnProperty.call(tx.requisite, "sbpNumber")).toBe(true)
    if (tx.requisite.sbpNumber !== null) expect(tx.requisite.sbpNumber).toMatch(/^\+\d{10,14}$/)
  }

  it("creates a pay-in with every field of the spec's tables in the spec's formats", async () => {
    const extra = {
      payerInfo: { ip: "203.0.113.5", userId: "user-1", userAgent: "Mozilla/5.0", fingerprint: "a1b2c3", registeredAt: 1700000000000 },
      externalTransactionId: "order-1001",
      custom: { kept: true },
    }
    const res = await call(base, "POST", "/payment/trading/pay-in", {
      body: payInBody({ fiatAmount: 1234.5, extra }),
      headers: { "x-signature": "whatever-is-accepted" },
    })
    expect(res.status).toBe(201)
    const tx = res.body
    expectTransactionFormats(tx)
    expect(tx.status).toBe("active")
    expect(tx.fiatAmount).toBe("1234.50")
    expect(tx.fiatCurrency).toBe("RUB")
    expect(tx.cryptoCurrency).toBe("usdt")
    expect(tx.cryptoNetwork).toBe("trc20")
    expect(tx.currencyRate).toBe("96.45")
    // 1234.50 / 96.45 USDT in micro-units, half-up; fee 2.5 % of it.
    expect(tx.cryptoAmount).toBe("12799378")
    expect(tx.merchantFee).toBe("319984")
    expect(tx.disputeMerchantCheckUrl).toBeNull()
    expect(tx.disputeTraderCheckUrl).toBeNull()
    expect(tx.disputeMerchantFiatAmount).toBe("0.00")
    expect(tx.disputeTraderFiatAmount).toBe("0.00")
    expect(tx.extra).toEqual(extra)
    expect(tx.externalPaymentPageUrl).toBe(`${base}/pay/${tx.id}`)
    expect(Math.abs(Date.parse(tx.createdAt) - Date.now())).toBeLessThan(60_000)
  })

  it("serves both lookups with the bare Transaction", async () => {
    const created = (await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ extra: { externalTransactionId: "ext-42" } }) })).body
    const byId = await call(base, "GET", `/payment/trading/${created.id}`)
    expect(byId.status).toBe(200)
    expect(byId.body).toEqual(created)
    const byExternal = await call(base, "GET", "/payment/trading/external/ext-42")
    expect(byExternal.status).toBe(200)
    expect(byExternal.body).toEqual(created)
    expectTransactionFormats(byExternal.body)
  })

  it("answers 404 TRANSACTION_NOT_FOUND for unknown ids", async () => {
    for (const path of [
      "/payment/trading/3f0b7c52-8a43-4d8e-9f3e-0c3c1d1e2f3a",
      "/payment/trading/not-a-uuid",
      "/payment/trading/external/nobody",
    ]) {
      const res = await call(base, "GET", path)
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ statusCode: 404, code: "TRANSACTION_NOT_FOUND", message: expect.any(String) })
    }
  })

  it("answers 401 INVALID_API_KEY for a missing or wrong key on every service route", async () => {
    const routes: ["GET" | "POST", string][] = [
      ["POST", "/payment/trading/pay-in"],
      ["GET", "/payment/trading/banks"],
      ["GET", "/payment/trading/currency"],
      ["GET", "/payment/trading/3f0b7c52-8a43-4d8e-9f3e-0c3c1d1e2f3a"],
      ["GET", "/payment/trading/external/x"],
      ["POST", "/payment/trading/pay-out"],
    ]
    for (const [method, path] of routes) {
      for (const apiKey of [null, "wrong", `${API_KEY}x`, ""]) {
        const res = await call(base, method, path, { apiKey, body: method === "POST" ? payInBody() : undefined })
        expect(res.status).toBe(401)
        expect(res.body).toEqual({ statusCode: 401, code: "INVALID_API_KEY", message: expect.any(String) })
      }
    }
    expect(sandbox.transactions()).toHaveLength(0)
  })

  it("lists banks as { name, methods, currencies } that the pay-in bank field accepts", async () => {
    const res = await call(base, "GET", "/payment/trading/banks")
    expect(res.status).toBe(200)
    expect(Array.isArray(res.body)).toBe(true)
    expect(res.body.length).toBeGreaterThanOrEqual(3)
    const methods = ["account", "card", "deeplink", "link", "phone_number", "qr", "quasi", "mobile_comm"]
    for (const bank of res.body) {
      expect(Object.keys(bank).sort()).toEqual(["currencies", "methods", "name"])
      expect(typeof bank.name).toBe("string")
      expect(bank.currencies.length).toBeGreaterThan(0)
      for (const c of bank.currencies) expect(c).toMatch(/^[A-Z]{3}$/)
      expect(bank.methods.length).toBeGreaterThan(0)
      for (const m of bank.methods) expect(methods).toContain(m)
    }
    const served = new Set(res.body.flatMap((b: any) => b.methods))
    expect([...served].sort()).toEqual([...methods].sort())
    // Every listed RUB bank is accepted as the pay-in's bank and yields its requisites.
    for (const bank of BANKS.filter((b) => b.currencies.includes("RUB"))) {
      const created = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ bank: bank.name, fiatAmount: 10 }) })
      expect(created.status).toBe(201)
      expect(created.body.bank).toBe(bank.name)
      expect(created.body.requisite.bank).toBe(bank.name)
    }
  })

  it("lists currencies with rates; RUB is served and codes are upper-case", async () => {
    const res = await call(base, "GET", "/payment/trading/currency")
    expect(res.status).toBe(200)
    const rub = res.body.find((c: any) => c.fiatCurrency === "RUB")
    expect(rub).toEqual({ fiatCurrency: "RUB", cryptoCurrency: "usdt", cryptoNetwork: "trc20", rate: "96.45" })
    for (const c of res.body) {
      expect(Object.keys(c).sort()).toEqual(["cryptoCurrency", "cryptoNetwork", "fiatCurrency", "rate"])
      expect(c.fiatCurrency).toMatch(/^[A-Z]{3}$/)
      expect(c.cryptoCurrency).toMatch(/^[a-z]+$/)
      expect(c.cryptoNetwork).toMatch(/^[a-z0-9]+$/)
      expect(c.rate).toMatch(/^\d+\.\d+$/)
    }
    expect(res.body.map((c: any) => c.fiatCurrency)).toEqual(expect.arrayContaining(["RUB", "USD", "EUR", "KZT", "UZS"]))
  })

  it("accepts fiat currency codes in any case and answers upper-case", async () => {
    const res = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ fiatCurrency: "kZt", fiatAmount: 5000 }) })
    expect(res.status).toBe(201)
    expect(res.body.fiatCurrency).toBe("KZT")
    expect(res.body.requisite.fiatCurrency).toBe("KZT")
    expect(res.body.currencyRate).toBe("478.50")
    expect(["kaspi", "halyk"]).toContain(res.body.bank)
  })

  it("selects the requisite by method and bank as the spec says", async () => {
    const card = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ bank: "sberbank", method: "card" }) })
    expect(card.status).toBe(201)
    expect(card.body.bank).toBe("sberbank")
    expect(card.body.requisite.requisites).toMatch(/^\d{16}$/)
    const phone = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ bank: "SberBank", method: "phone_number" }) })
    expect(phone.status).toBe(201)
    expect(phone.body.bank).toBe("sberbank")
    expect(phone.body.requisite.requisites).toMatch(/^\+7\d{10}$/)
    expect(phone.body.requisite.sbpNumber).toBe(phone.body.requisite.requisites)
    const account = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ bank: "sberbank", method: "account" }) })
    expect(account.body.requisite.requisites).toMatch(/^\d{20}$/)
    expect(account.body.requisite.sbpNumber).toBeNull()
    // Method only: any bank offering it.
    const qr = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ method: "qr" }) })
    expect(qr.status).toBe(201)
    expect(qr.body.bank).toBe("tinkoff")
    expect(qr.body.requisite.requisites).toMatch(/^https:\/\//)
    // Neither: a random available requisite; over several creations more than one bank appears.
    const banks = new Set<string>()
    for (let i = 0; i < 20; i++) {
      const r = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ fiatAmount: 100 + i }) })
      expect(r.status).toBe(201)
      banks.add(r.body.bank)
    }
    expect(banks.size).toBeGreaterThan(1)
  })

  it("answers 400 VALIDATION_ERROR with the failing fields for invalid bodies", async () => {
    const cases: [unknown, string][] = [
      [{ fiatCurrency: "RUB" }, "fiatAmount"],
      [{ fiatAmount: 10, fiatAmountRange: { min: 1, max: 2 }, fiatCurrency: "RUB" }, "fiatAmount"],
      [{ fiatAmount: 10.123, fiatCurrency: "RUB" }, "fiatAmount"],
      [{ fiatAmount: -5, fiatCurrency: "RUB" }, "fiatAmount"],
      [{ fiatAmount: "10", fiatCurrency: "RUB" }, "fiatAmount"],
      [{ fiatAmount: 10 }, "fiatCurrency"],
      [{ fiatAmount: 10, fiatCurrency: "RUBLE" }, "fiatCurrency"],
      [{ fiatAmount: 10, fiatCurrency: "XXX" }, "fiatCurrency"],
      [{ fiatAmount: 10, fiatCurrency: "RUB", method: "cash" }, "method"],
      [{ fiatAmount: 10, fiatCurrency: "RUB", bank: "nobank" }, "bank"],
      [{ fiatAmountRange: { min: 20, max: 10 }, fiatCurrency: "RUB" }, "fiatAmountRange.min"],
      [{ fiatAmount: 10, fiatCurrency: "RUB", extra: { payerInfo: { registeredAt: "yesterday" } } }, "extra.payerInfo.registeredAt"],
      [{ fiatAmount: 10, fiatCurrency: "RUB", paymentPageConfig: { success_redirect: "javascript:alert(1)" } }, "paymentPageConfig.success_redirect"],
    ]
    for (const [body, field] of cases) {
      const res = await call(base, "POST", "/payment/trading/pay-in", { body })
      expect(res.status).toBe(400)
      expect(res.body.statusCode).toBe(400)
      expect(res.body.code).toBe("VALIDATION_ERROR")
      expect(typeof res.body.message).toBe("string")
      expect(res.body.errors.map((e: any) => e.field)).toContain(field)
    }
    const notJson = await call(base, "POST", "/payment/trading/pay-in", { rawBody: "{nope", headers: { "content-type": "application/json" } })
    expect(notJson.status).toBe(400)
    expect(notJson.body.code).toBe("VALIDATION_ERROR")
    expect(sandbox.transactions()).toHaveLength(0)
  })

  it("picks an amount inside fiatAmountRange", async () => {
    const amounts = new Set<string>()
    for (let i = 0; i < 15; i++) {
      const res = await call(base, "POST", "/payment/trading/pay-in", { body: { fiatAmountRange: { min: 100.5, max: 120.25 }, fiatCurrency: "RUB" } })
      expect(res.status).toBe(201)
      expect(res.body.fiatAmount).toMatch(DECIMAL_2)
      const value = Number(res.body.fiatAmount)
      expect(value).toBeGreaterThanOrEqual(100.5)
      expect(value).toBeLessThanOrEqual(120.25)
      amounts.add(res.body.fiatAmount)
    }
    expect(amounts.size).toBeGreaterThan(1)
    const pinned = await call(base, "POST", "/payment/trading/pay-in", { body: { fiatAmountRange: { min: 77.7, max: 77.7 }, fiatCurrency: "RUB" } })
    expect(pinned.body.fiatAmount).toBe("77.70")
  })

  it("exhausts a bank's requisites with identical active amounts (422 REQUISITES_UNAVAILABLE) and a range still succeeds", async () => {
    const pool = sandbox.merchant().requisitesPerMethod
    const body = payInBody({ bank: "kapitalbank", fiatCurrency: "UZS", fiatAmount: 250000 })
    const requisites = new Set<string>()
    for (let i = 0; i < pool; i++) {
      const res = await call(base, "POST", "/payment/trading/pay-in", { body })
      expect(res.status).toBe(201)
      requisites.add(res.body.requisite.id)
    }
    expect(requisites.size).toBe(pool)
    const exhausted = await call(base, "POST", "/payment/trading/pay-in", { body })
    expect(exhausted.status).toBe(422)
    expect(exhausted.body).toEqual({ statusCode: 422, code: "REQUISITES_UNAVAILABLE", message: expect.any(String) })
    // A different amount on the same bank is still fine, and so is a range around the amount.
    expect((await call(base, "POST", "/payment/trading/pay-in", { body: { ...body, fiatAmount: 250001 } })).status).toBe(201)
    const ranged = await call(base, "POST", "/payment/trading/pay-in", {
      body: { bank: "kapitalbank", fiatCurrency: "UZS", fiatAmountRange: { min: 250000, max: 250000.05 } },
    })
    expect(ranged.status).toBe(201)
    expect(ranged.body.fiatAmount).not.toBe("250000.00")
    // A range that only contains exhausted amounts fails too.
    const onlyExhausted = await call(base, "POST", "/payment/trading/pay-in", {
      body: { bank: "kapitalbank", fiatCurrency: "UZS", fiatAmountRange: { min: 250000, max: 250000 } },
    })
    expect(onlyExhausted.status).toBe(422)
    // Once one of them leaves "active", its requisite is free again for that amount.
    const first = sandbox.transactions().find((t) => t.fiatAmount === "250000.00")!
    await call(base, "POST", `/_sandbox/transactions/${first.id}/pay`, { apiKey: null })
    expect((await call(base, "POST", "/payment/trading/pay-in", { body })).status).toBe(201)
    // A method no bank of the currency offers is unavailable as well.
    const none = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ fiatCurrency: "UZS", method: "qr" }) })
    expect(none.status).toBe(422)
    expect(none.body.code).toBe("REQUISITES_UNAVAILABLE")
  })

  it("rejects a duplicate externalTransactionId with 409 DUPLICATE_EXTERNAL_ID and leaves the original untouched", async () => {
    const first = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody({ extra: { externalTransactionId: "dup-1" } }) })
    expect(first.status).toBe(201)
    const second = await call(base, "POST", "/payment/trading/pay-in", {
      body: payInBody({ fiatAmount: 999, extra: { externalTransactionId: "dup-1" } }),
    })
    expect(second.status).toBe(409)
    expect(second.body).toEqual({ statusCode: 409, code: "DUPLICATE_EXTERNAL_ID", message: expect.any(String) })
    const lookup = await call(base, "GET", "/payment/trading/external/dup-1")
    expect(lookup.body).toEqual(first.body)
    expect(sandbox.transactions()).toHaveLength(1)
  })

  it("accepts and records a pay-out", async () => {
    const res = await call(base, "POST", "/payment/trading/pay-out", {
      body: { fiatAmount: 500.1, fiatCurrency: "rub", bank: "sberbank", requisites: "2202200000000000", ownerName: "Ivan I." },
    })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      type: "pay-out",
      status: "accepted",
      fiatAmount: "500.10",
      fiatCurrency: "RUB",
      bank: "sberbank",
      requisites: "2202200000000000",
      ownerName: "Ivan I.",
      extra: {},
      createdAt: expect.stringMatching(ISO_MS),
    })
    const recorded = await call(base, "GET", "/_sandbox/payouts", { apiKey: null })
    expect(recorded.body).toEqual([res.body])
    const invalid = await call(base, "POST", "/payment/trading/pay-out", { body: { fiatCurrency: "RUB" } })
    expect(invalid.status).toBe(400)
    expect(invalid.body.code).toBe("VALIDATION_ERROR")
    expect(invalid.body.errors.map((e: any) => e.field)).toEqual(expect.arrayContaining(["fiatAmount", "requisites"]))
  })

  it("omits externalPaymentPageUrl when switched off, and uses publicUrl for it", async () => {
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { externalPaymentPageUrl: false } })
    const off = await call(base, "POST", "/payment/trading/pay-in", { body: payInBody() })
    expect(off.status).toBe(201)
    expect("externalPaymentPageUrl" in off.body).toBe(false)
    expect(TransactionSchema.safeParse(off.body).success).toBe(true)
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { externalPaymentPageUrl: true } })
    const on = await call(base, "GET", `/payment/trading/${off.body.id}`)
    expect(on.body.externalPaymentPageUrl).toBe(`${base}/pay/${off.body.id}`)

    const other = await startSandbox({ port: 0, apiKey: API_KEY, publicUrl: "https://pay.example.test/" })
    try {
      const tx = await call(other.url, "POST", "/payment/trading/pay-in", { body: payInBody() })
      expect(tx.body.externalPaymentPageUrl).toBe(`https://pay.example.test/pay/${tx.body.id}`)
    } finally {
      await other.close()
    }
  })

  it("rotates the API key through the control API", async () => {
    const res = await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { apiKey: "rotated-key" } })
    expect(res.status).toBe(200)
    expect("apiKey" in res.body).toBe(false)
    try {
      expect((await call(base, "GET", "/payment/trading/banks")).status).toBe(401)
      expect((await call(base, "GET", "/payment/trading/banks", { apiKey: "rotated-key" })).status).toBe(200)
    } finally {
      await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { apiKey: API_KEY } })
    }
    expect((await call(base, "GET", "/payment/trading/banks")).status).toBe(200)
  })
})
