/**
 * Amounts for people: the 2-decimal form the store's routes and notifications give ("1790.00"),
 * and the display of a decimal string in a locale (the storefront kit) or with its currency code
 * (the admin). Digits always come from the string itself: `Intl` only tells how a locale writes
 * numbers, so nothing passes through a float.
 */
import { parseDecimal, splitDecimal, toFixed } from "./decimal"

/** A decimal amount as a 2-decimal string rounded half-up ("1790.00"); null when absent or not a number. */
export function decimal2(value: unknown): string | null {
  if (value === null || value === undefined || value === "") return null
  if (typeof value !== "string" && typeof value !== "number") return null
  const parsed = parseDecimal(value)
  return parsed === null ? null : toFixed(parsed, 2)
}

type NumberShape = {
  /** The formatted amount with `\u0000` where the number goes (sign and currency around it). */
  positive: string
  negative: string
  decimal: string
  group: string
  primaryGroup: number
  secondaryGroup: number
  /** Digits the integer part needs beyond the first group before the locale groups at all. */
  minGrouping: number
}

const SLOT = "\u0000"
const NUMBER_PARTS = new Set(["integer", "group", "decimal", "fraction"])
const shapes = new Map<string, NumberShape>()

function template(parts: Intl.NumberFormatPart[]): string {
  let out = ""
  let placed = false
  for (const part of parts) {
    if (NUMBER_PARTS.has(part.type)) {
      if (!placed) out += SLOT
      placed = true
    } else {
      out += part.value
    }
  }
  return out
}

function safeLocale(locale: string): string {
  try {
    return Intl.NumberFormat.supportedLocalesOf(locale).length ? locale : "en"
  } catch {
    return "en"
  }
}

function localeShape(locale: string, currency: string): NumberShape {
  const key = `${locale}|${currency}`
  const cached = shapes.get(key)
  if (cached) return cached
  const loc = safeLocale(locale)
  const validCurrency = /^[A-Z]{3}$/.test(currency)
  // Fixed 2 fraction digits so the sample always shows a decimal separator (even for JPY);
  // Latin digits so what is shown is what a shopper types into a banking app.
  const format = new Intl.NumberFormat(loc, {
    ...(validCurrency ? { style: "currency" as const, currency } : {}),
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
    numberingSystem: "latn",
  })
  const sample = format.formatToParts(1234567.89)
  const integers = sample.filter((p) => p.type === "integer").map((p) => p.value)
  const shape: NumberShape = {
    positive: template(sample),
    negative: template(format.formatToParts(-1234567.89)),
    decimal: sample.find((p) => p.type === "decimal")?.value ?? ".",
    group: sample.find((p) => p.type === "group")?.value ?? "",
    primaryGroup: integers.length > 1 ? integers[integers.length - 1].length : 3,
    secondaryGroup: integers.length > 2 ? integers[integers.length - 2].length : 3,
    // Some locales (es, pl) leave 4-digit numbers ungrouped: 1234 but 12 345.
    minGrouping: format.formatToParts(1234.5).some((p) => p.type === "group") ? 1 : 2,
  }
  if (!validCurrency) {
    shape.positive += currency ? ` ${currency}` : ""
    shape.negative += currency ? ` ${currency}` : ""
  }
  shapes.set(key, shape)
  return shape
}

/** The admin's shape: the digits as given, no grouping, the code after them ("1790.00 RUB"). */
function codeShape(currency: string): NumberShape {
  const code = currency ? ` ${currency}` : ""
  return { positive: SLOT + code, negative: `-${SLOT}${code}`, decimal: ".", group: "", primaryGroup: 3, secondaryGroup: 3, minGrouping: 1 }
}

function groupDigits(digits: string, shape: NumberShape): string {
  if (!shape.group || digits.length < shape.primaryGroup + shape.minGrouping) return digits
  const groups = [digits.slice(-shape.primaryGroup)]
  let rest = digits.slice(0, -shape.primaryGroup)
  while (rest.length > shape.secondaryGroup) {
    groups.unshift(rest.slice(-shape.secondaryGroup))
    rest = rest.slice(0, -shape.secondaryGroup)
  }
  if (rest) groups.unshift(rest)
  return groups.join(shape.group)
}

/** A plain decimal string in a shape, digit for digit; null when `amount` is not a plain decimal. */
function render(amount: string, shape: (currency: string) => NumberShape, currency: unknown): string | null {
  const parts = splitDecimal(amount)
  if (!parts) return null
  const chosen = shape(String(currency ?? "").trim().toUpperCase())
  const integer = parts.integer.replace(/^0+(?=\d)/, "")
  const number = groupDigits(integer, chosen) + (parts.fraction ? chosen.decimal + parts.fraction : "")
  return (parts.negative ? chosen.negative : chosen.positive).split(SLOT).join(number)
}

/**
 * Formats a decimal amount string for display in the shopper's locale, digit for digit:
 * `formatAmount("1790.00", "RUB", "en")` → `"RUB 1,790.00"`, with `"ru"` → `"1 790,00 ₽"`
 * (with the non-breaking spaces `Intl` uses). The fraction digits are kept as given.
 *
 * @param amount - a decimal string such as `"1790.00"` or `"-5.5"`; anything else is returned as is
 * @param currency - ISO 4217 code (any case); an unknown code is written after the number
 * @param locale - BCP 47 tag (`"en"`, `"ru"`, `"de-DE"`); a malformed tag falls back to `"en"`
 */
export function formatAmount(amount: string, currency: string, locale = "en"): string {
  return render(amount, (code) => localeShape(locale, code), currency) ?? amount
}

/**
 * The same amount written as its digits and currency code, the way the admin shows the ledger's
 * figures: `"1790.00 RUB"` (no grouping, the fraction digits as given). Anything that is not a
 * decimal string is written as it is, followed by the code.
 */
export function formatAmountWithCode(amount: string, currency: string): string {
  return render(amount, codeShape, currency) ?? `${amount} ${String(currency ?? "").toUpperCase()}`.trim()
}
