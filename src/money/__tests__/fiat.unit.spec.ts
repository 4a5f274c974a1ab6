import fc from "fast-check"
import { BigNumber } from "@medusajs/framework/utils"
import { AmountError, toFiatAmount } from "../fiat"

const MAX = 1_000_000_000

describe("toFiatAmount", () => {
  it("writes two fraction digits exactly", () => {
    expect(toFiatAmount(1490, "rub", MAX)).toEqual({ decimal: "1490.00", value: 1490 })
    expect(toFiatAmount("10.5", "RUB", MAX)).toEqual({ decimal: "10.50", value: 10.5 })
    expect(toFiatAmount(new BigNumber("0.01"), "usd", MAX).decimal).toBe("0.01")
    expect(toFiatAmount({ value: "1234567.89", precision: 20 }, "eur", MAX).decimal).toBe("1234567.89")
  })

  it("rounds float artefacts and tax fractions half-up with decimal arithmetic", () => {
    expect(toFiatAmount(0.1 + 0.2, "usd", MAX).decimal).toBe("0.30")
    expect(toFiatAmount("10.685", "usd", MAX).decimal).toBe("10.69")
    expect(toFiatAmount("10.684999999", "usd", MAX).decimal).toBe("10.68")
    expect(toFiatAmount(1.005, "usd", MAX).decimal).toBe("1.01") // 1.005 as a float is 1.00499999999999989...
  })

  it("rounds at the currency's own precision", () => {
    expect(toFiatAmount("1500.4", "jpy", MAX).decimal).toBe("1500.00")
    expect(toFiatAmount("1500.5", "jpy", MAX).decimal).toBe("1501.00")
  })

  it("rejects what the service cannot take, with a clear error", () => {
    expect(() => toFiatAmount(-5, "rub", MAX)).toThrow(/greater than zero/)
    expect(() => toFiatAmount(0, "rub", MAX)).toThrow(/greater than zero/)
    expect(() => toFiatAmount("0.004", "rub", MAX)).toThrow(/greater than zero/)
    expect(() => toFiatAmount(1e21, "rub", MAX)).toThrow(/largest amount the payment service takes \(1000000000\)/)
    expect(() => toFiatAmount(Number.NaN, "rub", MAX)).toThrow(/finite|not a number/)
    expect(() => toFiatAmount("abc", "rub", MAX)).toThrow(/number/)
    expect(() => toFiatAmount(10, "kwd", MAX)).toThrow(/KWD has 3 fraction digits/)
    expect(() => toFiatAmount(10, "kwd", MAX)).toThrow(AmountError)
  })

  it("round-trips every cent amount exactly (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000_000 }), (cents) => {
        const decimal = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`
        const result = toFiatAmount(decimal, "rub", Number.MAX_SAFE_INTEGER)
        expect(result.decimal).toBe(decimal)
        expect(JSON.stringify(result.value)).toBe(String(Number(decimal)))
        expect(Math.round(result.value * 100)).toBe(cents)
      })
    )
  })
})
