// One sum of amounts for the money path's reads of Medusa and the payment cradle's captures.
import fc from "fast-check"
import { MathBN } from "@medusajs/framework/utils"
import { sumAmounts, toPlain } from ".."

const plain = (amounts: unknown[], missing?: "zero" | "unknown") => {
  const sum = sumAmounts(amounts, missing)
  return sum && toPlain(sum)
}

describe("sumAmounts", () => {
  it("adds exactly, as MathBN does", () => {
    const amount = fc.tuple(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), fc.integer({ min: 0, max: 4 }))
    fc.assert(
      fc.property(fc.array(amount, { maxLength: 6 }), (parts) => {
        const texts = parts.map(([units, scale]) => MathBN.convert(units.toString()).shiftedBy(-scale).toFixed())
        const expected = texts.reduce((s, t) => MathBN.add(s, t), MathBN.convert(0))
        expect(MathBN.eq(plain([...texts.map((t, i) => (i % 2 ? { value: t } : t))])!, expected)).toBe(true)
      })
    )
  })

  it("an amount that is not a number makes the sum unknown; a missing one counts 0 only when asked", () => {
    expect(plain(["1.10", { value: "2.05" }, 3])).toBe("6.15")
    expect(plain(["1", "abc"], "zero")).toBeNull()
    expect(plain(["1", null])).toBeNull()
    expect(plain(["1", { value: undefined }])).toBeNull()
    expect(plain(["1", null, undefined, {}, { value: undefined }], "zero")).toBe("1")
    expect(plain([])).toBe("0")
  })
})
