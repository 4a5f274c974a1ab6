import { type AmountInput, type Decimal, compare, parseDecimal, round } from "./decimal"

// Medusa's `defaultCurrencies` digits, written out because the admin and the storefront kit bundle this without Medusa (a unit test keeps them equal); they differ from Intl's for UZS, HUF and TZS.
const ZERO_DIGITS = new Set(
  ("AFN ALL AMD BIF CLP COP CRC DJF GNF HUF IDR IQD IRR IRT ISK JPY KMF KRW LBP MGA MMK MNT MUR " +
    "PKR PYG RSD RWF SOS SYP TZS UGX UZS VND XAF XOF XPF YER ZMK ZWL").split(" ")
)
const THREE_DIGITS = new Set("BHD JOD KWD LYD OMR TND".split(" "))

export function currencyFractionDigits(currencyCode: string): number {
  const code = String(currencyCode ?? "").toUpperCase()
  return ZERO_DIGITS.has(code) ? 0 : THREE_DIGITS.has(code) ? 3 : 2
}

/** An amount rounded half-up at its currency's digits; null when it is not a number. */
export function roundToCurrency(amount: AmountInput, currencyCode: string): Decimal | null {
  const value = parseDecimal(amount)
  return value === null ? null : round(value, currencyFractionDigits(currencyCode))
}

export function sameAmount(a: AmountInput, b: AmountInput, currencyCode: string): boolean {
  const x = roundToCurrency(a, currencyCode)
  const y = roundToCurrency(b, currencyCode)
  return x !== null && y !== null && compare(x, y) === 0
}

export function sameCurrency(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}
