import fc from "fast-check"
import { centsFromDecimalString, centsFromNumber, cryptoMicroUnits, feeOf, formatCents, parseRate } from "../money"

describe("money", () => {
  it("formats cents as a decimal with exactly two fraction digits and parses it back", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000_000 }), (cents) => {
        const text = formatCents(cents)
        expect(text).toMatch(/^\d+\.\d{2}$/)
        expect(centsFromDecimalString(text)).toBe(cents)
        expect(centsFromNumber(cents / 100)).toBe(cents)
        expect(Number(text)).toBe(cents / 100)
      })
    )
    expect(formatCents(5)).toBe("0.05")
    expect(formatCents(123450)).toBe("1234.50")
    expect(formatCents(-150)).toBe("-1.50")
  })

  it("parses short decimals and rejects malformed amounts", () => {
    expect(centsFromDecimalString("12")).toBe(1200)
    expect(centsFromDecimalString("12.3")).toBe(1230)
    expect(centsFromNumber(0.29)).toBe(29)
    for (const bad of ["", "1.234", "-1", "1e3", "abc", "1."]) {
      expect(() => centsFromDecimalString(bad)).toThrow()
    }
  })

  it("converts fiat to crypto micro-units at the rate, half-up, and the fee in the same unit", () => {
    expect(cryptoMicroUnits(192900, parseRate("96.45"))).toBe(20_000_000n)
    expect(cryptoMicroUnits(123450, parseRate("96.45"))).toBe(12_799_378n)
    expect(cryptoMicroUnits(100, parseRate("1.00"))).toBe(1_000_000n)
    expect(cryptoMicroUnits(1, parseRate("3"))).toBe(3_333n)
    expect(cryptoMicroUnits(2, parseRate("3"))).toBe(6_667n)
    expect(feeOf(20_000_000n, 250)).toBe(500_000n)
    expect(feeOf(1n, 5000)).toBe(1n)
    expect(feeOf(1n, 4999)).toBe(0n)
    expect(() => parseRate("0")).toThrow()
    expect(() => parseRate("abc")).toThrow()
  })

  it("is exact: crypto(a) never differs from the rational value by more than half a unit", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000_000 }), fc.integer({ min: 1, max: 10_000_000 }), (cents, rateCents) => {
        const rate = parseRate(formatCents(rateCents))
        const micro = cryptoMicroUnits(cents, rate)
        // |micro - cents*1e4*den/num| <= 1/2  <=>  |2*micro*num - 2*cents*1e4*den| <= num
        const diff = 2n * micro * rate.num - 2n * BigInt(cents) * 10_000n * rate.den
        expect(diff <= rate.num && diff >= -rate.num).toBe(true)
      })
    )
  })
})
