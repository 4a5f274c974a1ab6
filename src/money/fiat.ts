import { currencyFractionDigits } from "./currency"
import { type AmountInput, add, compare, isPositive, multiply, parseDecimal, round, toFixed } from "./decimal"

export const SERVICE_FRACTION_DIGITS = 2

export type FiatAmount = {
  decimal: string
  /** The same value as a JSON number for the request body (exact: at most 12 significant digits). */
  value: number
}

/** An amount the payment service cannot take; the message is fit for the shopper. */
export class AmountError extends Error {
  override name = "AmountError"
}

/** Rounded half-up at the currency's precision, written with two fraction digits; an AmountError for what the service cannot take. */
export function toFiatAmount(amount: AmountInput, currencyCode: string, maxAmount: number): FiatAmount {
  const digits = currencyFractionDigits(currencyCode)
  if (digits > SERVICE_FRACTION_DIGITS) {
    throw new AmountError(
      `${currencyCode.toUpperCase()} has ${digits} fraction digits; the payment service takes amounts with at most ${SERVICE_FRACTION_DIGITS}`
    )
  }
  const value = parseDecimal(amount)
  if (value === null) {
    throw new AmountError("The payment amount is not a finite number")
  }
  const rounded = round(value, digits)
  if (!isPositive(rounded)) {
    throw new AmountError("The payment amount must be greater than zero")
  }
  if (compare(rounded, parseDecimal(maxAmount)!) > 0) {
    throw new AmountError(`The payment amount is above the largest amount the payment service takes (${maxAmount})`)
  }
  const decimal = toFixed(rounded, SERVICE_FRACTION_DIGITS)
  return { decimal, value: Number(decimal) }
}

/** fiatAmountRange for the "range" amount policy: from the amount up to tolerance% above, cut at cents. */
export function amountRange(decimal: string, tolerancePercent: number): { min: number; max: number } {
  const low = parseDecimal(decimal)
  const tolerance = parseDecimal(tolerancePercent)
  if (low === null || tolerance === null) {
    throw new AmountError("The payment amount is not a finite number")
  }
  // low × (1 + tolerance / 100), exactly: dividing by 100 moves the decimal point
  const factor = add({ units: BigInt(1), scale: 0 }, { units: tolerance.units, scale: tolerance.scale + 2 })
  const high = round(multiply(low, factor), 2, "down")
  return { min: Number(toFixed(low, 2)), max: Number(toFixed(high, 2)) }
}
