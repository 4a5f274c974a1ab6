import fc from "fast-check"
import {
  BankListSchema,
  CurrencyListSchema,
  ErrorBodySchema,
  hasAtMostTwoDecimals,
  PayinRequestSchema,
  TransactionSchema,
} from "../schemas"

const transaction = {
  id: "3f0b7c52-8a43-4d8e-9f3e-0c3c1d1e2f3a",
  fiatAmount: "1500.00",
  cryptoAmount: "15552100",
  merchantFee: "388803",
  currencyRate: "96.45",
  type: "pay-in",
  status: "active",
  bank: "sberbank",
  fiatCurrency: "RUB",
  cryptoCurrency: "usdt",
  cryptoNetwork: "trc20",
  payoutInvoicesUrl: [],
  disputeMerchantCheckUrl: null,
  disputeTraderCheckUrl: null,
  disputeMerchantFiatAmount: "0.00",
  disputeTraderFiatAmount: "0.00",
  requisite: {
    id: "da271bd9-fb18-57b1-b310-0d13f7f0110c",
    bank: "sberbank",
    ownerName: "Ivan I.",
    sbpNumber: "+79161234567",
    requisites: "2202200012345678",
    fiatCurrency: "RUB",
  },
  extra: { externalTransactionId: "order-1" },
  createdAt: "2025-01-01T00:00:00.000Z",
  externalPaymentPageUrl: "https://pay.example.test/pay/1",
}

describe("response schemas are tolerant", () => {
  it("accepts a full Transaction and keeps unknown keys", () => {
    const parsed = TransactionSchema.parse({ ...transaction, somethingNew: 1, requisite: { ...transaction.requisite, extraField: "x" } })
    expect((parsed as Record<string, unknown>).somethingNew).toBe(1)
    expect((parsed.requisite as Record<string, unknown>).extraField).toBe("x")
  })

  it("accepts an absent externalPaymentPageUrl and a null or absent sbpNumber", () => {
    const { externalPaymentPageUrl: _u, ...withoutUrl } = transaction
    expect(TransactionSchema.safeParse(withoutUrl).success).toBe(true)
    expect(TransactionSchema.safeParse({ ...transaction, requisite: { ...transaction.requisite, sbpNumber: null } }).success).toBe(true)
    const { sbpNumber: _s, ...requisite } = transaction.requisite
    expect(TransactionSchema.safeParse({ ...transaction, requisite }).success).toBe(true)
  })

  it("accepts every status of the spec and rejects others", () => {
    for (const status of ["active", "closed", "canceled", "dispute", "checking", "re_calculation"]) {
      expect(TransactionSchema.safeParse({ ...transaction, status }).success).toBe(true)
    }
    expect(TransactionSchema.safeParse({ ...transaction, status: "paid" }).success).toBe(false)
    expect(TransactionSchema.safeParse({ ...transaction, requisite: undefined }).success).toBe(false)
  })

  it("parses banks, currencies (string or number rates) and error bodies", () => {
    expect(BankListSchema.parse([{ name: "sberbank", methods: ["card"] }])).toEqual([{ name: "sberbank", methods: ["card"] }])
    expect(CurrencyListSchema.safeParse([{ fiatCurrency: "RUB", cryptoCurrency: "usdt", cryptoNetwork: "trc20", rate: 96.45 }]).success).toBe(true)
    expect(ErrorBodySchema.parse({ statusCode: 403, code: "MERCHANT_IP_NOT_WHITELISTED", message: "no", ip: "1.2.3.4" })).toMatchObject({ ip: "1.2.3.4" })
    expect(ErrorBodySchema.safeParse({ message: "no" }).success).toBe(false)
  })
})

describe("pay-in request schema is strict about what it needs", () => {
  it("requires exactly one of fiatAmount and fiatAmountRange", () => {
    expect(PayinRequestSchema.safeParse({ fiatAmount: 10, fiatCurrency: "RUB" }).success).toBe(true)
    expect(PayinRequestSchema.safeParse({ fiatAmountRange: { min: 10, max: 20 }, fiatCurrency: "RUB" }).success).toBe(true)
    expect(PayinRequestSchema.safeParse({ fiatCurrency: "RUB" }).success).toBe(false)
    expect(PayinRequestSchema.safeParse({ fiatAmount: 10, fiatAmountRange: { min: 10, max: 20 }, fiatCurrency: "RUB" }).success).toBe(false)
    expect(PayinRequestSchema.safeParse({ fiatAmountRange: { min: 30, max: 20 }, fiatCurrency: "RUB" }).success).toBe(false)
  })

  it("validates method, currency code, URLs and payer info types", () => {
    expect(PayinRequestSchema.safeParse({ fiatAmount: 1, fiatCurrency: "RUB", method: "sbp" }).success).toBe(false)
    expect(PayinRequestSchema.safeParse({ fiatAmount: 1, fiatCurrency: "rub", method: "mobile_comm" }).success).toBe(true)
    expect(PayinRequestSchema.safeParse({ fiatAmount: 1, fiatCurrency: "RU" }).success).toBe(false)
    expect(PayinRequestSchema.safeParse({ fiatAmount: 1, fiatCurrency: "RUB", paymentPageConfig: { success_redirect: "javascript:x" } }).success).toBe(false)
    expect(PayinRequestSchema.safeParse({ fiatAmount: 1, fiatCurrency: "RUB", paymentPageConfig: { supportLink: "tel:+79160000000" } }).success).toBe(true)
    expect(PayinRequestSchema.safeParse({ fiatAmount: 1, fiatCurrency: "RUB", extra: { payerInfo: { fingerprint: "not hex" } } }).success).toBe(false)
    expect(PayinRequestSchema.safeParse({ fiatAmount: 1, fiatCurrency: "RUB", extra: { payerInfo: { registeredAt: 1.5 } } }).success).toBe(false)
  })

  it("accepts exactly the amounts with at most two fraction digits", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000_000 }), (cents) => {
        expect(hasAtMostTwoDecimals(cents / 100)).toBe(true)
        expect(PayinRequestSchema.safeParse({ fiatAmount: cents / 100, fiatCurrency: "RUB" }).success).toBe(true)
      })
    )
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_000 }), fc.integer({ min: 1, max: 9 }), (cents, extra) => {
        expect(hasAtMostTwoDecimals(cents / 100 + extra / 1000)).toBe(false)
      })
    )
    expect(hasAtMostTwoDecimals(Number.NaN)).toBe(false)
    expect(hasAtMostTwoDecimals(Infinity)).toBe(false)
  })
})
