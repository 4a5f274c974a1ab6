import { type AmountInput, type Decimal, compare, parseDecimal, round } from "./decimal"

/**
 * Fraction digits (minor units) of the ISO 4217 currencies as Medusa's `defaultCurrencies` has
 * them; every other currency has 2. Written out here because this module is also bundled into
 * the admin and the storefront kit, which do not load Medusa (a unit test keeps the list equal to
 * Medusa's). Medusa's digits differ from `Intl`'s for some currencies (UZS, HUF, TZS: 0 here).
 */
const ZERO_DIGITS = new Set(
  ("AFN ALL AMD BIF CLP COP CRC DJF GNF HUF IDR IQD IRR IRT ISK JPY KMF KRW LBP MGA MMK MNT MUR " +
    "PKR PYG RSD RWF SOS SYP TZS UGX UZS VND XAF XOF XPF YER ZMK ZWL").split(" ")
)
const THREE_DIGITS = new Set("BHD JOD KWD LYD OMR TND".split(" "))

/** Fraction digits of an ISO 4217 currency (any case) as Medusa knows them; 2 when unknown. */
export function currencyFractionDigits(currencyCode: string): number {
  const code = String(currencyCode ?? "").toUpperCase()
  return ZERO_DIGITS.has(code) ? 0 : THREE_DIGITS.has(code) ? 3 : 2
}

/** An amount rounded half-up at its currency's digits; null when it is not a number. */
export function roundToCurrency(amount: AmountInput, currencyCode: string): Decimal | null {
  const value = parseDecimal(amount)
  return value === null ? null : round(value, currencyFractionDigits(currencyCode))
}

/** True when two amounts are equal at the currency's precision (false when either is not a number). */
export function sameAmount(a: AmountInput, b: AmountInput, currencyCode: string): boolean {
  const x = roundToCurrency(a, currencyCode)
  const y = roundToCurrency(b, currencyCode)
  return x !== null && y !== null && compare(x, y) === 0
}

/** Whether two currency codes name the same currency (case aside). */
export function sameCurrency(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}
