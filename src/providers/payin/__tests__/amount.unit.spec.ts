import fc from "fast-check"
import { BigNumber } from "@medusajs/framework/utils"
import { sameAmount, toFiatAmount } from "../amount"

describe("toFiatAmount", () => {
  it("writes two fraction digits exactly", () => {
    expect(toFiatAmount(1490, "rub")).toEqual({ decimal: "1490.00", value: 1490 })
    expect(toFiatAmount("10.5", "RUB")).toEqual({ decimal: "10.50", value: 10.5 })
    expect(toFiatAmount(new BigNumber("0.01"), "usd").decimal).toBe("0.01")
    expect(toFiatAmount({ value: "1234567.89", precision: 20 }, "eur").decimal).toBe("1234567.89")
  })

  it("rounds float artefacts and tax fractions half-up with decimal arithmetic", () => {
    expect(toFiatAmount(0.1 + 0.2, "usd").decimal).toBe("0.30")
    expect(toFiatAmount("10.685", "usd").decimal).toBe("10.69")
    expect(toFiatAmount("10.684999999", "usd").decimal).toBe("10.68")
    expect(toFiatAmount(1.005, "usd").decimal).toBe("1.01") // 1.005 as a float is 1.00499999999999989...
  })

  it("rounds at the currency's own precision", () => {
    expect(toFiatAmount("1500.4", "jpy").decimal).toBe("1500.00")
    expect(toFiatAmount("1500.5", "jpy").decimal).toBe("1501.00")
  })

  it("rejects what the service cannot take, with a clear error", () => {
    expect(() => toFiatAmount(-5, "rub")).toThrow(/greater than zero/)
    expect(() => toFiatAmount(0, "rub")).toThrow(/greater than zero/)
    expect(() => toFiatAmount("0.004", "rub")).toThrow(/greater than zero/)
    expect(() => toFiatAmount(1e21, "rub")).toThrow(/largest amount/)
    expect(() => toFiatAmount(Number.NaN, "rub")).toThrow(/finite|not a number/)
    expect(() => toFiatAmount("abc", "rub")).toThrow(/number/)
    expect(() => toFiatAmount(10, "kwd")).toThrow(/KWD has 3 fraction digits/)
  })

  it("round-trips every cent amount exactly (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000_000 }), (cents) => {
        const decimal = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`
        const result = toFiatAmount(decimal, "rub")
        expect(result.decimal).toBe(decimal)
        expect(JSON.stringify(result.value)).toBe(String(Number(decimal)))
        expect(Math.round(result.value * 100)).toBe(cents)
      })
    )
  })

  it("compares at currency precision", () => {
    expect(sameAmount("10.001", 10, "usd")).toBe(true)
    expect(sameAmount("10.01", 10, "usd")).toBe(false)
  })
})
