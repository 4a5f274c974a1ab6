import { BigNumberInput } from "@medusajs/framework/types"
import { MathBN, MedusaError, defaultCurrencies } from "@medusajs/framework/utils"
import { MAX_FIAT_AMOUNT } from "../../client/schemas"

/** The service takes fiat amounts with at most this many fraction digits. */
export const SERVICE_FRACTION_DIGITS = 2

export type FiatAmount = {
  /** Exact decimal string with two fraction digits, e.g. "1490.50". */
  decimal: string
  /** The same value as a JSON number for the request body (exact: at most 12 significant digits). */
  value: number
}

/** Fraction digits of an ISO 4217 currency as Medusa knows them (2 when unknown). */
export function currencyFractionDigits(currencyCode: string): number {
  const known = defaultCurrencies[currencyCode.toUpperCase() as keyof typeof defaultCurrencies]
  return known ? known.decimal_digits : 2
}

/**
 * Converts a Medusa amount (BigNumber major units) to the service's fiat amount: rounded half-up
 * at the currency's precision with decimal arithmetic (never floats), then written with two
 * fraction digits. The one place where money changes representation.
 */
export function toFiatAmount(amount: BigNumberInput, currencyCode: string): FiatAmount {
  const digits = currencyFractionDigits(currencyCode)
  if (digits > SERVICE_FRACTION_DIGITS) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `${currencyCode.toUpperCase()} has ${digits} fraction digits; the payment service takes amounts with at most ${SERVICE_FRACTION_DIGITS}`
    )
  }
  let value
  try {
    value = MathBN.convert(amount)
  } catch {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, "The payment amount is not a number")
  }
  if (!value.isFinite()) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, "The payment amount is not a finite number")
  }
  const rounded = value.decimalPlaces(digits, 4 /* ROUND_HALF_UP */)
  if (rounded.lte(0)) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, "The payment amount must be greater than zero")
  }
  if (rounded.gt(MAX_FIAT_AMOUNT)) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `The payment amount is above the largest amount the payment service takes (${MAX_FIAT_AMOUNT})`
    )
  }
  const decimal = rounded.toFixed(SERVICE_FRACTION_DIGITS)
  return { decimal, value: Number(decimal) }
}

/** True when two amounts are equal at the currency's precision. */
export function sameAmount(a: BigNumberInput, b: BigNumberInput, currencyCode: string): boolean {
  const digits = currencyFractionDigits(currencyCode)
  return MathBN.convert(a).decimalPlaces(digits, 4).eq(MathBN.convert(b).decimalPlaces(digits, 4))
}
