// Property tests of the money module. Medusa's MathBN (bignumber.js) is the oracle: the module
// must give what the server computed with it before, without loading Medusa itself.
import fc from "fast-check"
import { MathBN, defaultCurrencies } from "@medusajs/framework/utils"
import {
  amountRange,
  capturableAmount,
  captureAmount,
  compare,
  compareReceived,
  currencyFractionDigits,
  decimal2,
  eq,
  formatAmountWithCode,
  lt,
  min,
  parseDecimal,
  remainingToCapture,
  round,
  roundToCurrency,
  sameAmount,
  sessionAmount,
  splitDecimal,
  toFiatAmount,
  toFixed,
  toMinDigits,
  toPlain,
} from ".."

/** Decimal strings as the ledger, the service and Medusa write them: sign, up to 15 integer and 6 fraction digits. */
const decimalText = fc
  .tuple(fc.boolean(), fc.stringMatching(/^(0|[1-9]\d{0,14})$/), fc.stringMatching(/^\d{0,6}$/))
  .map(([negative, int, frac]) => `${negative ? "-" : ""}${int}${frac ? `.${frac}` : ""}`)
/** Positive amounts in cents, written with two fraction digits. */
const cents = fc.integer({ min: 1, max: 100_000_000_000 })
const text2 = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, "0")}`
/** Currencies of each precision Medusa knows: 0 (JPY, UZS), 2 (RUB, USD), 3 (KWD, BHD). */
const CURRENCIES = ["jpy", "uzs", "rub", "usd", "eur", "kwd", "bhd"]

const bn = (value: unknown) => MathBN.convert(value as string)
/** bignumber.js writes a negative value that rounds to zero as "-0.00"; money writes zero unsigned ("0.00"). */
const unsigned = (text: string) => text.replace(/^-(?=[0.]*$)/, "")

describe("decimals: parse and write (round trips)", () => {
  it("reads every decimal string exactly and writes it back in bignumber.js's plain form (property)", () => {
    fc.assert(
      fc.property(decimalText, (text) => {
        const parsed = parseDecimal(text)!
        expect(toPlain(parsed)).toBe(unsigned(bn(text).toFixed()))
        expect(eq(parseDecimal(toPlain(parsed))!, parsed)).toBe(true)
        // the digits as written survive a parse: fixed at the scale they were written with
        const scale = text.split(".")[1]?.length ?? 0
        expect(toFixed(parsed, scale)).toBe(text.replace(/^-(?=0(\.0*)?$)/, ""))
      }),
      { numRuns: 500 }
    )
  })

  it("reads numbers through their shortest spelling, as bignumber.js does (property)", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }), (value) => {
        expect(toPlain(parseDecimal(value)!)).toBe(unsigned(bn(value).toFixed()))
      }),
      { numRuns: 500 }
    )
    expect(toPlain(parseDecimal(0.1 + 0.2)!)).toBe("0.30000000000000004")
    expect(toPlain(parseDecimal(1e21)!)).toBe("1000000000000000000000")
    expect(toPlain(parseDecimal("1.5e-3")!)).toBe("0.0015")
  })

  it("reads Medusa's raw amounts and BigNumbers", () => {
    expect(toPlain(parseDecimal({ value: "1234567.89", precision: 20 })!)).toBe("1234567.89")
    expect(toPlain(parseDecimal(bn("0.01"))!)).toBe("0.01")
    expect(toPlain(parseDecimal(BigInt(42))!)).toBe("42")
  })

  it("is not a number for anything else", () => {
    for (const bad of ["", "abc", "1,5", "1.2.3", "--1", "0x10", "1e", null, undefined, {}, [], Number.NaN, Infinity, true]) {
      expect([bad, parseDecimal(bad)]).toEqual([bad, null])
    }
  })

  it("writes at least two fraction digits for the merchant's figures, keeping finer ones (property)", () => {
    fc.assert(
      fc.property(decimalText, (text) => {
        const value = bn(text)
        expect(toMinDigits(parseDecimal(text)!, 2)).toBe(unsigned((value.decimalPlaces() ?? 0) >= 2 ? value.toFixed() : value.toFixed(2)))
      })
    )
  })

  it("gives the 2-decimal display form rounded half-up, and leaves it unchanged a second time (property)", () => {
    fc.assert(
      fc.property(decimalText, (text) => {
        const shown = decimal2(text)!
        expect(shown).toBe(unsigned(bn(text).toFixed(2)))
        expect(decimal2(shown)).toBe(shown)
        expect(splitDecimal(shown)?.fraction).toBe(shown.split(".")[1])
      }),
      { numRuns: 500 }
    )
    expect(decimal2("1790")).toBe("1790.00")
    expect(decimal2(1790.5)).toBe("1790.50")
    expect(decimal2("0.005")).toBe("0.01")
    expect(decimal2("1234567890.125")).toBe("1234567890.13")
    expect(decimal2("-3.1")).toBe("-3.10")
    expect(decimal2("-0.001")).toBe("0.00")
    expect(decimal2(" 12.5 ")).toBe("12.50")
    expect(decimal2("1.005e0")).toBe("1.01") // exactly, not through a float (1.00499…)
    for (const none of ["abc", null, undefined, "", {}, Number.NaN]) expect(decimal2(none)).toBeNull()
  })

  it("writes an amount with its code digit for digit, as the admin always did (property)", () => {
    const admin = (amount: string, currency: string) => `${amount} ${currency.toUpperCase()}`.trim()
    fc.assert(
      fc.property(
        fc.tuple(fc.boolean(), fc.stringMatching(/^(0|[1-9]\d{0,20})$/), fc.stringMatching(/^\d{0,20}$/)),
        fc.constantFrom("RUB", "rub", "usd", "KWD", ""),
        ([negative, int, frac], currency) => {
          const amount = `${negative ? "-" : ""}${int}${frac ? `.${frac}` : ""}`
          expect(formatAmountWithCode(amount, currency)).toBe(admin(amount, currency))
        }
      )
    )
    expect(formatAmountWithCode("n/a", "rub")).toBe("n/a RUB")
  })
})

describe("rounding at every currency's digits", () => {
  it("knows the digits Medusa knows, for every currency of defaultCurrencies (2 for others)", () => {
    for (const [code, currency] of Object.entries(defaultCurrencies)) {
      expect([code, currencyFractionDigits(code)]).toEqual([code, currency.decimal_digits])
      expect(currencyFractionDigits(code.toLowerCase())).toBe(currency.decimal_digits)
    }
    expect(currencyFractionDigits("XYZ")).toBe(2)
    expect([currencyFractionDigits("jpy"), currencyFractionDigits("rub"), currencyFractionDigits("kwd")]).toEqual([0, 2, 3])
  })

  it("rounds half-up at the currency's digits, exactly as MathBN, within half a minor unit, idempotently (property)", () => {
    fc.assert(
      fc.property(decimalText, fc.constantFrom(...CURRENCIES), (text, currency) => {
        const digits = currencyFractionDigits(currency)
        const rounded = roundToCurrency(text, currency)!
        expect(rounded.scale).toBe(digits)
        expect(toFixed(rounded, digits)).toBe(unsigned(bn(text).decimalPlaces(digits, 4).toFixed(digits)))
        const error = bn(toPlain(rounded)).minus(bn(text)).abs()
        expect(error.lte(bn(`0.5e-${digits}`))).toBe(true)
        expect(eq(roundToCurrency(toPlain(rounded), currency)!, rounded)).toBe(true)
        expect(sameAmount(text, toPlain(rounded), currency)).toBe(true)
      }),
      { numRuns: 1000 }
    )
  })

  it("rounds ties away from zero, or cuts towards zero", () => {
    expect(toPlain(round(parseDecimal("2.5")!, 0))).toBe("3")
    expect(toPlain(round(parseDecimal("-2.5")!, 0))).toBe("-3")
    expect(toPlain(round(parseDecimal("2.99")!, 1, "down"))).toBe("2.9")
    expect(toPlain(round(parseDecimal("-2.99")!, 1, "down"))).toBe("-2.9")
  })

  it("compares at the currency's precision as MathBN did (property)", () => {
    fc.assert(
      fc.property(decimalText, decimalText, fc.constantFrom(...CURRENCIES), (a, b, currency) => {
        const digits = currencyFractionDigits(currency)
        expect(sameAmount(a, b, currency)).toBe(bn(a).decimalPlaces(digits, 4).eq(bn(b).decimalPlaces(digits, 4)))
      })
    )
    expect(sameAmount("10.001", 10, "usd")).toBe(true)
    expect(sameAmount("10.01", 10, "usd")).toBe(false)
    expect(sameAmount("1500.4", 1500, "jpy")).toBe(true)
    expect(sameAmount("abc", "abc", "usd")).toBe(false)
  })
})

describe("comparisons", () => {
  it("agree with MathBN, and exactly one of a < b, a = b, b < a holds (property)", () => {
    fc.assert(
      fc.property(decimalText, decimalText, (a, b) => {
        expect(eq(a, b)).toBe(bn(a).eq(bn(b)))
        expect(lt(a, b)).toBe(bn(a).lt(bn(b)))
        expect([lt(a, b), eq(a, b), lt(b, a)].filter(Boolean)).toHaveLength(1)
        // antisymmetry and symmetry
        if (lt(a, b)) expect(lt(b, a)).toBe(false)
        expect(eq(b, a)).toBe(eq(a, b))
        expect(compare(parseDecimal(a)!, parseDecimal(b)!)).toBe(-compare(parseDecimal(b)!, parseDecimal(a)!) || 0)
      }),
      { numRuns: 1000 }
    )
  })

  it("are equal for the same value however written (property)", () => {
    fc.assert(
      fc.property(decimalText, fc.integer({ min: 0, max: 5 }), (a, zeros) => {
        const padded = a.includes(".") ? a + "0".repeat(zeros) : `${a}.${"0".repeat(zeros)}`
        expect(eq(a, padded.replace(/\.$/, ""))).toBe(true)
        expect(eq(a, parseDecimal(a)!)).toBe(true)
      })
    )
  })

  it("are transitive, and min is the smaller of the two, whichever comes first (property)", () => {
    fc.assert(
      fc.property(decimalText, decimalText, decimalText, (a, b, c) => {
        if (lt(a, b) && lt(b, c)) expect(lt(a, c)).toBe(true)
        const smaller = min(a, b)!
        expect(eq(smaller, a) || eq(smaller, b)).toBe(true)
        expect(lt(a, smaller) || lt(b, smaller)).toBe(false)
        expect(eq(min(a, b)!, min(b, a)!)).toBe(true)
        expect(eq(smaller, MathBN.min(a, b).toFixed())).toBe(true)
      })
    )
  })

  it("are false, like NaN's, when a side is not a number", () => {
    expect([eq("abc", "abc"), lt("abc", 1), lt(1, "abc"), min("abc", 1)]).toEqual([false, false, false, null])
  })
})

describe("what is captured", () => {
  const row = (session: string, currency = "rub") => ({ amount: session, raw_amount: { value: session }, currency_code: currency })

  it("never above the session amount nor above what arrived, exactly as MathBN did (property)", () => {
    fc.assert(
      fc.property(cents, cents, (sessionCents, gotCents) => {
        const session = text2(sessionCents)
        const got = text2(gotCents)
        const captured = captureAmount(row(session), { fiat_amount: got, fiat_currency: "RUB" })!
        expect(lt(session, captured)).toBe(false)
        expect(lt(got, captured)).toBe(false)
        expect(eq(captured, Math.min(sessionCents, gotCents) / 100)).toBe(true)
        expect(captured).toBe((bn(got).lt(bn(session)) ? bn(got) : bn(session)).toString())
      }),
      { numRuns: 500 }
    )
  })

  it("is the session amount while nothing is reported, nothing in another currency (property)", () => {
    fc.assert(
      fc.property(cents, cents, fc.constantFrom("USD", "EUR", "KZT"), (sessionCents, gotCents, other) => {
        const r = row(text2(sessionCents))
        expect(captureAmount(r, { fiat_amount: null, fiat_currency: null })).toBe(bn(text2(sessionCents)).toString())
        expect(captureAmount(r, { fiat_amount: text2(gotCents), fiat_currency: other })).toBeNull()
        const paid = { ...r, paid_at: new Date(), store_canceled_at: null, fiat_amount: text2(gotCents), fiat_currency: other }
        expect(capturableAmount(paid)).toBeNull()
        expect(compareReceived(r, { fiatAmount: text2(gotCents), fiatCurrency: other })).toMatchObject({
          flag: "underpayment",
          details: { captured_amount: "0", missing_amount: text2(sessionCents), reason: "received in another currency" },
        })
      })
    )
  })

  it("counts what is missing in the currency asked when the service had created the pay-in in another currency (created_mismatch)", () => {
    // the service assigned 25.00 USD for a 1,790 RUB session: the store refused it; paid in USD
    const r = { ...row("1790.00"), assigned_amount: "25.00", flag_kinds: ["created_mismatch"] }
    expect(compareReceived(r, { fiatAmount: "25.00", fiatCurrency: "USD" })).toMatchObject({
      flag: "underpayment",
      details: { assigned_amount: "1790.00", currency: "RUB", received_currency: "USD", missing_amount: "1790.00", captured_amount: "0" },
    })
    // an assignment the store kept (inside the range asked) stays what was asked
    expect(compareReceived({ ...r, flag_kinds: [] }, { fiatAmount: "20.00", fiatCurrency: "USD" })!.details).toMatchObject({ missing_amount: "25.00" })
  })

  it("is nothing before payment or after the store ended the pay-in", () => {
    const paid = { ...row("1790.00"), paid_at: new Date(), store_canceled_at: null, fiat_amount: "895.00", fiat_currency: "RUB" }
    expect(capturableAmount(paid)).toBe("895")
    expect(capturableAmount({ ...paid, paid_at: null })).toBeNull()
    expect(capturableAmount({ ...paid, store_canceled_at: new Date() })).toBeNull()
    expect(captureAmount(row("1790.00"), { fiat_amount: "abc", fiat_currency: "RUB" })).toBeNull()
  })

  it("soak seed 1 (30 minutes): is what the service credited at the last close, though a dispute recalculated it since", () => {
    const paid = { ...row("1790.00"), paid_at: new Date(), fiat_amount: "1249.27", fiat_currency: "RUB", credited_amount: "1790.00" }
    expect(capturableAmount(paid)).toBe("1790")
    expect(capturableAmount({ ...paid, credited_amount: "895.00" })).toBe("895")
    // a row from before the column: its fiat amount
    expect(capturableAmount({ ...paid, credited_amount: null })).toBe("1249.27")
  })

  it("flags the difference with the merchant's figures (property)", () => {
    const figure = (value: ReturnType<typeof bn>) => ((value.decimalPlaces() ?? 0) >= 2 ? value.toFixed() : value.toFixed(2))
    fc.assert(
      fc.property(cents, cents, fc.option(cents, { nil: null }), (sessionCents, gotCents, assignedCents) => {
        const r = { ...row(text2(sessionCents)), assigned_amount: assignedCents === null ? null : text2(assignedCents) }
        const assigned = r.assigned_amount ?? sessionAmount(r)
        const got = text2(gotCents)
        const result = compareReceived(r, { fiatAmount: got, fiatCurrency: "RUB" })
        if (eq(got, assigned)) return expect(result).toBeNull()
        const booked = figure(bn(captureAmount(r, { fiat_amount: got, fiat_currency: "RUB" })))
        const difference = figure(bn(got).minus(bn(assigned)).abs())
        expect(result).toEqual({
          flag: lt(got, assigned) ? "underpayment" : "overpayment",
          details: {
            assigned_amount: assigned,
            received_amount: got,
            currency: "RUB",
            received_currency: "RUB",
            captured_amount: booked,
            [lt(got, assigned) ? "missing_amount" : "excess_amount"]: difference,
          },
        })
      }),
      { numRuns: 500 }
    )
  })

  it("leaves to capture what may be booked less what was captured, never below zero (property)", () => {
    fc.assert(
      fc.property(cents, fc.integer({ min: 0, max: 100_000_000_000 }), (capCents, doneCents) => {
        const rest = remainingToCapture(text2(capCents), text2(doneCents))
        expect(rest).toBe(capCents > doneCents ? bn(text2(capCents)).minus(bn(text2(doneCents))).toString() : "0")
      })
    )
    expect(remainingToCapture("100", 30.5)).toBe("69.5")
  })
})

describe("what the shopper is asked", () => {
  it("is the amount rounded at the currency's digits with two fraction digits, as MathBN did (property)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9]\d{0,8}(\.\d{1,6})?$/), fc.constantFrom("jpy", "uzs", "rub", "usd", "eur"), (text, currency) => {
        const digits = currencyFractionDigits(currency)
        const expected = bn(text).decimalPlaces(digits, 4)
        if (expected.lte(0)) return
        expect(toFiatAmount(text, currency, 1_000_000_000).decimal).toBe(expected.toFixed(2))
      }),
      { numRuns: 500 }
    )
  })

  it("asks for a range from the amount up to tolerance% above, cut at cents, as MathBN did (property)", () => {
    fc.assert(
      fc.property(cents, fc.double({ min: 0.01, max: 50, noNaN: true }), (c, tolerance) => {
        const decimal = text2(c)
        const max = MathBN.mult(bn(decimal), MathBN.add(1, MathBN.div(tolerance, 100))).decimalPlaces(2, 1)
        expect(amountRange(decimal, tolerance)).toEqual({ min: Number(bn(decimal).toFixed(2)), max: Number(max.toFixed(2)) })
      }),
      { numRuns: 500 }
    )
    expect(amountRange("1790.00", 1)).toEqual({ min: 1790, max: 1807.9 })
  })
})
