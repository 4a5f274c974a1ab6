// Digits always come from the decimal string itself: Intl only tells how a locale writes numbers, so nothing passes through a float.
import { parseDecimal, splitDecimal, toFixed } from "./decimal"

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

function render(amount: string, shape: (currency: string) => NumberShape, currency: unknown): string | null {
  const parts = splitDecimal(amount)
  if (!parts) return null
  const chosen = shape(String(currency ?? "").trim().toUpperCase())
  const integer = parts.integer.replace(/^0+(?=\d)/, "")
  const number = groupDigits(integer, chosen) + (parts.fraction ? chosen.decimal + parts.fraction : "")
  return (parts.negative ? chosen.negative : chosen.positive).split(SLOT).join(number)
}

/** `formatAmount("1790.00", "RUB", "ru")` → `"1 790,00 ₽"`; an unknown currency code is written after the number, a malformed locale falls back to "en". */
export function formatAmount(amount: string, currency: string, locale = "en"): string {
  return render(amount, (code) => localeShape(locale, code), currency) ?? amount
}

/** The admin's form: `"1790.00 RUB"`, no grouping. */
export function formatAmountWithCode(amount: string, currency: string): string {
  return render(amount, codeShape, currency) ?? `${amount} ${String(currency ?? "").toUpperCase()}`.trim()
}
