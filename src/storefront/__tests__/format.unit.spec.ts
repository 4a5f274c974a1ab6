import fc from "fast-check"
import { copyValue, formatAmount, formatRequisite, requisiteKind } from "../format"

const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, " ")
const intl = (locale: string, currency: string, value: number) =>
  new Intl.NumberFormat(locale, {
    style: "currency",
    currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
    numberingSystem: "latn",
  }).format(value)

describe("formatAmount", () => {
  it("writes English amounts the way Intl does for en", () => {
    expect(spaces(formatAmount("1790.00", "RUB", "en"))).toBe("RUB 1,790.00")
    expect(formatAmount("1790.00", "RUB", "en")).toBe(intl("en", "RUB", 1790))
    expect(formatAmount("0.50", "USD", "en")).toBe("$0.50")
  })

  it("writes Russian amounts with a space group separator, a comma and the rouble sign after", () => {
    expect(spaces(formatAmount("1790.00", "RUB", "ru"))).toBe("1 790,00 ₽")
    expect(spaces(formatAmount("1234567.89", "rub", "ru"))).toBe("1 234 567,89 ₽")
    expect(spaces(formatAmount("999.00", "RUB", "ru"))).toBe("999,00 ₽")
  })

  it("places the minus sign where the locale does", () => {
    expect(formatAmount("-1790.50", "RUB", "en")).toBe(intl("en", "RUB", -1790.5))
    expect(formatAmount("-1790.50", "RUB", "ru")).toBe(intl("ru", "RUB", -1790.5))
  })

  it("follows locale grouping rules (Indian lakhs, Spanish 4-digit numbers)", () => {
    expect(formatAmount("1234567.00", "INR", "en-IN")).toBe(intl("en-IN", "INR", 1234567))
    expect(formatAmount("1234567.00", "INR", "en-IN")).toContain("12,34,567.00")
    expect(formatAmount("1234.00", "EUR", "es")).toBe(intl("es", "EUR", 1234))
    expect(formatAmount("12345.00", "EUR", "es")).toBe(intl("es", "EUR", 12345))
  })

  it("keeps digits beyond float precision", () => {
    expect(spaces(formatAmount("12345678901234567890.12", "RUB", "en"))).toBe("RUB 12,345,678,901,234,567,890.12")
    expect(spaces(formatAmount("0.10", "RUB", "en"))).toBe("RUB 0.10")
  })

  it("keeps the fraction digits given and drops leading zeros", () => {
    expect(spaces(formatAmount("1790", "RUB", "en"))).toBe("RUB 1,790")
    expect(spaces(formatAmount("1790.125", "RUB", "en"))).toBe("RUB 1,790.125")
    expect(spaces(formatAmount("007.50", "RUB", "en"))).toBe("RUB 7.50")
  })

  it("returns invalid amounts unchanged", () => {
    for (const bad of ["", "abc", "1,790.00", "1e3", "NaN", "1.2.3", ".5", "--1"]) {
      expect(formatAmount(bad, "RUB", "en")).toBe(bad)
    }
  })

  it("survives a malformed locale and an unknown currency", () => {
    expect(spaces(formatAmount("1790.00", "RUB", "??"))).toBe("RUB 1,790.00")
    expect(formatAmount("1790.00", "", "en")).toBe("1,790.00")
    expect(spaces(formatAmount("1790.00", "US$", "en"))).toBe("1,790.00 US$")
  })

  const locales = ["en", "ru", "de", "fr", "es", "en-IN", "ja", "pt-BR", "de-CH", "kk", "uz"]
  const currencies = ["RUB", "USD", "EUR", "KZT", "UZS", "JPY", "GBP", "INR", "CHF"]

  it("matches Intl for every amount a float can hold exactly (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e13, max: 1e13 }),
        fc.constantFrom(...locales),
        fc.constantFrom(...currencies),
        (cents, locale, currency) => {
          const abs = Math.abs(cents)
          const text = `${cents < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`
          expect(formatAmount(text, currency, locale)).toBe(intl(locale, currency, cents / 100))
        }
      ),
      { numRuns: 400 }
    )
  })

  it("never changes the digits, however long the amount (property)", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[1-9]\d{0,29}$/),
        fc.stringMatching(/^\d{0,4}$/),
        fc.constantFrom(...locales),
        fc.constantFrom(...currencies),
        (int, frac, locale, currency) => {
          const text = frac ? `${int}.${frac}` : int
          const shown = formatAmount(text, currency, locale)
          expect(shown.replace(/\D/g, "")).toBe(int + frac)
        }
      ),
      { numRuns: 400 }
    )
  })
})

describe("formatRequisite", () => {
  it("groups card numbers 4-4-4-4 (quasi too)", () => {
    expect(formatRequisite("2202201234567890", "card")).toBe("2202 2012 3456 7890")
    expect(formatRequisite("2200151234567895", "quasi")).toBe("2200 1512 3456 7895")
    expect(formatRequisite("2202 2012-3456 7890", "card")).toBe("2202 2012 3456 7890")
    expect(formatRequisite("2202201234567890123", "card")).toBe("2202 2012 3456 7890 123")
  })

  it("writes Russian phones as +7 912 345-67-89 from any common spelling", () => {
    expect(formatRequisite("+79123456789", "phone_number")).toBe("+7 912 345-67-89")
    expect(formatRequisite("89123456789", "phone_number")).toBe("+7 912 345-67-89")
    expect(formatRequisite("+7 (912) 345-67-89", "mobile_comm")).toBe("+7 912 345-67-89")
  })

  it("keeps + and groups other countries' phones", () => {
    expect(formatRequisite("+14151234567", "phone_number")).toBe("+1 415 123 4567")
    expect(formatRequisite("+998901234567", "phone_number")).toBe("+998 901 234 567")
    expect(formatRequisite("+4915112345678", "phone_number")).toBe("+49 151 123 456 78")
  })

  it("groups 20-digit accounts 5-3-1-4-7 and other accounts in fours", () => {
    expect(formatRequisite("40817810012345678901", "account")).toBe("40817 810 0 1234 5678901")
    expect(formatRequisite("GB12TRWI12345678901234", "account")).toBe("GB12 TRWI 1234 5678 9012 34")
  })

  it("leaves links and unexpected values alone", () => {
    for (const [value, method] of [
      ["https://qr.nspk.ru/AS1234", "qr"],
      ["https://pay.vtb.example/t/abc", "link"],
      ["tinkoff://transfer?phone=79123456789", "deeplink"],
      ["not a card", "card"],
      ["12", "phone_number"],
      ["Ivan / 123", "account"],
    ]) {
      expect(formatRequisite(value, method)).toBe(value)
    }
  })

  it("guesses the kind when the method is unknown", () => {
    expect(requisiteKind("2202201234567890", null)).toBe("card")
    expect(requisiteKind("+79123456789", null)).toBe("phone")
    expect(requisiteKind("40817810012345678901", null)).toBe("account")
    expect(requisiteKind("https://x.example", null)).toBe("link")
    expect(formatRequisite("2202201234567890", null)).toBe("2202 2012 3456 7890")
  })

  it("never changes the digits of a card or account (property)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{12,20}$/), fc.constantFrom("card", "quasi", "account"), (digits, method) => {
        const shown = formatRequisite(digits, method)
        expect(shown.replace(/ /g, "")).toBe(digits)
      })
    )
  })
})

describe("copyValue", () => {
  it("copies raw digits for cards and accounts", () => {
    expect(copyValue("2202 2012 3456 7890", "card")).toBe("2202201234567890")
    expect(copyValue("40817 810 0 1234 5678901", "account")).toBe("40817810012345678901")
    expect(copyValue("GB12 TRWI 1234", "account")).toBe("GB12TRWI1234")
  })

  it("copies phones as +7…", () => {
    expect(copyValue("8 912 345-67-89", "phone_number")).toBe("+79123456789")
    expect(copyValue("+7 912 345-67-89", "sbp")).toBe("+79123456789")
    expect(copyValue("+1 415 123 4567", "mobile_comm")).toBe("+14151234567")
  })

  it("copies the amount as a plain decimal string", () => {
    expect(copyValue("1790.00", "amount")).toBe("1790.00")
    expect(copyValue(" 1790.00 ", "amount")).toBe("1790.00")
    expect(copyValue("-5.50", "amount")).toBe("-5.50")
  })

  it("copies links unchanged", () => {
    expect(copyValue("https://qr.nspk.ru/AS1", "qr")).toBe("https://qr.nspk.ru/AS1")
  })
})
