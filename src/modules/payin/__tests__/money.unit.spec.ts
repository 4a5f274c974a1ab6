import fc from "fast-check"
import { captureAmount, compareReceived, createdMismatch } from "../money"
import { sharedAccounts } from "../loaders/verify-settings"

const row = { amount: "1790", raw_amount: { value: "1790" }, currency_code: "rub", assigned_amount: "1790.00" }

describe("compareReceived", () => {
  it("agrees when the service received the assigned amount in the order's currency", () => {
    expect(compareReceived(row, { fiatAmount: "1790.00", fiatCurrency: "RUB" })).toBeNull()
  })
  it("flags less and more than assigned, whatever came before", () => {
    expect(compareReceived(row, { fiatAmount: "1500.00", fiatCurrency: "RUB" })).toMatchObject({
      flag: "underpayment",
      details: { assigned_amount: "1790.00", received_amount: "1500.00" },
    })
    expect(compareReceived(row, { fiatAmount: "1800.00", fiatCurrency: "RUB" })?.flag).toBe("overpayment")
  })
  it("compares with the amount the service assigned inside a range, not the order total", () => {
    expect(compareReceived({ ...row, assigned_amount: "1805.00" }, { fiatAmount: "1805.00", fiatCurrency: "RUB" })).toBeNull()
  })
  it("falls back to the session amount when the creation answer is unknown", () => {
    expect(compareReceived({ ...row, assigned_amount: null }, { fiatAmount: "1790.00", fiatCurrency: "RUB" })).toBeNull()
  })
  it("treats another currency as an underpayment", () => {
    expect(compareReceived(row, { fiatAmount: "1790.00", fiatCurrency: "USD" })).toMatchObject({ flag: "underpayment" })
  })
})

describe("captureAmount", () => {
  it("captures the smaller of received and session amount, exactly (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: 10_000_000 }), (sessionCents, gotCents) => {
        const session = (sessionCents / 100).toFixed(2)
        const got = (gotCents / 100).toFixed(2)
        const captured = captureAmount({ ...row, raw_amount: { value: session } }, { fiat_amount: got, fiat_currency: "RUB" })
        expect(Number(captured)).toBe(Math.min(sessionCents, gotCents) / 100)
      })
    )
  })
  it("captures nothing received in another currency", () => {
    expect(captureAmount(row, { fiat_amount: "1790.00", fiat_currency: "USD" })).toBeNull()
  })
})

describe("createdMismatch", () => {
  it("accepts the requested amount or an amount inside the range", () => {
    expect(createdMismatch({ currency: "RUB", amount: 1790 }, { fiatAmount: "1790.00", fiatCurrency: "RUB" })).toBeNull()
    expect(createdMismatch({ currency: "rub", range: { min: 1790, max: 1800 } }, { fiatAmount: "1795.50", fiatCurrency: "RUB" })).toBeNull()
  })
  it("names another amount, an amount outside the range, or another currency", () => {
    expect(createdMismatch({ currency: "RUB", amount: 1790 }, { fiatAmount: "1.00", fiatCurrency: "RUB" })).toMatch(/assigned 1\.00/)
    expect(createdMismatch({ currency: "RUB", range: { min: 1790, max: 1800 } }, { fiatAmount: "1800.01", fiatCurrency: "RUB" })).toMatch(/outside/)
    expect(createdMismatch({ currency: "RUB", amount: 1790 }, { fiatAmount: "1790.00", fiatCurrency: "USD" })).toMatch(/in USD/)
  })
})

describe("sharedAccounts (boot warning)", () => {
  it("groups instances that resolve to the same key and base URL", () => {
    const saved = { ...process.env }
    process.env.PAYIN_API_KEY = "one-key-for-everyone"
    process.env.PAYIN_BASE_URL = "https://service.example"
    try {
      expect(sharedAccounts([{ id: "default" }, { id: "second" }, { id: "own", apiKey: "own-key-12345678" }])).toEqual([
        ["default", "second"],
      ])
    } finally {
      process.env = saved
    }
  })
})
