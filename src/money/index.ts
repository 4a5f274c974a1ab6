/**
 * Money, in one place: exact decimals (no floats), currency digits and rounding, what the
 * shopper is asked (the service's fiat amount, the amount range), what arrived and what Medusa
 * may book of it, and amounts for display. No Medusa imports: the admin and the storefront kit
 * bundle it too (the kit imports `./display` only).
 */
export {
  type AmountInput,
  type Decimal,
  add,
  compare,
  eq,
  gt,
  isPositive,
  lt,
  min,
  multiply,
  normalize,
  parseDecimal,
  round,
  splitDecimal,
  subtract,
  toFixed,
  toMinDigits,
  toPlain,
} from "./decimal"
export { currencyFractionDigits, roundToCurrency, sameAmount, sameCurrency } from "./currency"
export { AmountError, type FiatAmount, SERVICE_FRACTION_DIGITS, amountRange, toFiatAmount } from "./fiat"
export {
  type MoneyRow,
  type PaidRow,
  type ServiceAmount,
  type SessionAmountRow,
  capturableAmount,
  captureAmount,
  compareReceived,
  createdMismatch,
  notCapturableReason,
  remainingToCapture,
  sessionAmount,
} from "./received"
export { decimal2, formatAmount, formatAmountWithCode } from "./display"
