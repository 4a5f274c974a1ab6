import fc from "fast-check"
import { capturableAmount, captureAmount, compareReceived, createdMismatch, notCapturableReason, remainingToCapture } from "../../../money"
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

describe("capturableAmount (what Medusa may book in all, on every path)", () => {
  const paid = { ...row, paid_at: new Date(), store_canceled_at: null, fiat_amount: "895.00", fiat_currency: "RUB" }
  it("is what arrived, never more than the session amount", () => {
    expect(capturableAmount(paid)).toBe("895")
    expect(capturableAmount({ ...paid, fiat_amount: "1890.00" })).toBe("1790")
    expect(capturableAmount({ ...paid, fiat_amount: "1790.00" })).toBe("1790")
  })
  it("is nothing before payment, for another currency, or after the store ended the pay-in", () => {
    expect(capturableAmount({ ...paid, paid_at: null })).toBeNull()
    expect(capturableAmount({ ...paid, fiat_currency: "USD" })).toBeNull()
    expect(capturableAmount({ ...paid, store_canceled_at: new Date() })).toBeNull()
    expect(notCapturableReason({ ...paid, fiat_currency: "USD" })).toBe("received in another currency")
    expect(notCapturableReason({ ...paid, store_canceled_at: new Date() })).toMatch(/ended/)
    expect(notCapturableReason(paid)).toBeNull()
  })
  it("leaves to capture what may be booked less what was captured, never below zero (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 0, max: 10_000_000 }), (capCents, doneCents) => {
        const rest = remainingToCapture((capCents / 100).toFixed(2), (doneCents / 100).toFixed(2))
        expect(Math.round(Number(rest) * 100)).toBe(Math.max(0, capCents - doneCents))
      })
    )
  })
})

describe("compareReceived: the merchant's figures", () => {
  it("says what Medusa books and how much is missing or in excess", () => {
    expect(compareReceived(row, { fiatAmount: "895.00", fiatCurrency: "RUB" })?.details).toMatchObject({
      captured_amount: "895.00",
      missing_amount: "895.00",
    })
    expect(compareReceived(row, { fiatAmount: "1890.50", fiatCurrency: "RUB" })?.details).toMatchObject({
      captured_amount: "1790.00",
      excess_amount: "100.50",
    })
    expect(compareReceived(row, { fiatAmount: "1790.00", fiatCurrency: "USD" })?.details).toMatchObject({ captured_amount: "0" })
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
