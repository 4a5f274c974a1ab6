// No Medusa imports: the admin and the storefront kit bundle this too (the kit imports `./display` only).
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
  sumAmounts,
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
