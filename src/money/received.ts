import type { PayinFlag } from "../status"
import { sameCurrency } from "./currency"
import { type Decimal, compare, isPositive, lt, min, parseDecimal, subtract, toMinDigits, toPlain } from "./decimal"

/** The ledger columns that hold the session amount: `raw_amount.value` (exact) or `amount`. */
export type SessionAmountRow = { amount?: unknown; raw_amount?: { value?: unknown } | null }

export type MoneyRow = SessionAmountRow & {
  amount: string | number
  currency_code: string
  /** The amount the service assigned at creation (inside a fiatAmountRange it may differ from the session amount). */
  assigned_amount?: string | null
  flag_kinds?: readonly string[] | null
}

/**
 * What the shopper was asked, in the currency asked: the amount the service assigned, unless the
 * store refused that assignment (`created_mismatch`: another currency, or outside the range asked),
 * then the session amount.
 */
export function askedAmount(row: MoneyRow): string {
  return row.assigned_amount && !row.flag_kinds?.includes("created_mismatch") ? row.assigned_amount : sessionAmount(row)
}

export type PaidRow = MoneyRow & {
  paid_at?: Date | string | null
  store_canceled_at?: Date | string | null
  fiat_amount?: string | null
  fiat_currency?: string | null
  /** The fiat amount of the last close (a dispute may have recalculated fiat_amount since). */
  credited_amount?: string | null
}

export type ServiceAmount = { fiatAmount: string; fiatCurrency: string }

export function sessionAmount(row: SessionAmountRow): string {
  return String(row.raw_amount?.value ?? row.amount)
}

function figure(value: Decimal): string {
  return toMinDigits(value, 2)
}

/** Against the amount assigned at creation (the session amount when that answer is unknown); null when they agree. */
export function compareReceived(
  row: MoneyRow,
  tx: ServiceAmount
): { flag: Extract<PayinFlag, "underpayment" | "overpayment">; details: Record<string, unknown> } | null {
  const assigned = askedAmount(row)
  const details = {
    assigned_amount: assigned,
    received_amount: tx.fiatAmount,
    currency: row.currency_code.toUpperCase(),
    received_currency: tx.fiatCurrency.toUpperCase(),
  }
  if (!sameCurrency(tx.fiatCurrency, row.currency_code)) {
    return { flag: "underpayment", details: { ...details, reason: "received in another currency", captured_amount: "0", missing_amount: assigned } }
  }
  const received = parseDecimal(tx.fiatAmount)
  const expected = parseDecimal(assigned)
  if (received === null || expected === null) {
    return { flag: "underpayment", details: { ...details, reason: "the amounts are not numbers", captured_amount: "0", missing_amount: assigned } }
  }
  const order = compare(received, expected)
  if (order === 0) return null
  const capturable = captureAmount(row, { fiat_amount: tx.fiatAmount, fiat_currency: tx.fiatCurrency })
  const booked = capturable === null ? "0" : figure(parseDecimal(capturable)!)
  // what Medusa books, and how much is missing (or more than asked): the merchant's figures
  return order < 0
    ? { flag: "underpayment", details: { ...details, captured_amount: booked, missing_amount: figure(subtract(expected, received)) } }
    : { flag: "overpayment", details: { ...details, captured_amount: booked, excess_amount: figure(subtract(received, expected)) } }
}

/** The smaller of the received and the session amount: Medusa cannot capture more than was authorised. */
export function captureAmount(row: MoneyRow, received: { fiat_amount: string | null; fiat_currency: string | null }): string | null {
  const session = parseDecimal(sessionAmount(row))
  if (session === null) return null
  if (!received.fiat_amount) return toPlain(session)
  if (received.fiat_currency && !sameCurrency(received.fiat_currency, row.currency_code)) return null
  // an amount that is not a number books nothing (the service's schema never lets one through)
  const smaller = min(received.fiat_amount, session)
  return smaller === null ? null : toPlain(smaller)
}

/** Whichever path captures: what the service credited at the close, never more than the session amount; null when not paid, paid in another currency, or paid after the store ended the pay-in. */
export function capturableAmount(row: PaidRow): string | null {
  if (!row.paid_at || row.store_canceled_at) return null
  return captureAmount(row, { fiat_amount: row.credited_amount ?? row.fiat_amount ?? null, fiat_currency: row.fiat_currency ?? null })
}

export function notCapturableReason(row: PaidRow): string | null {
  if (!row.paid_at) return "the shopper has not paid yet"
  if (row.store_canceled_at) return "paid after the store ended the pay-in"
  if (capturableAmount(row) === null) return "received in another currency"
  return null
}

export function remainingToCapture(capturable: string, captured: string | number): string {
  const may = parseDecimal(capturable)
  const done = parseDecimal(captured)
  if (may === null || done === null) return "0"
  const rest = subtract(may, done)
  return isPositive(rest) ? toPlain(rest) : "0"
}

export function createdMismatch(
  requested: { currency: string; amount?: number; range?: { min: number; max: number } },
  tx: ServiceAmount
): string | null {
  if (tx.fiatCurrency.toUpperCase() !== requested.currency.toUpperCase()) {
    return `the service created the pay-in in ${tx.fiatCurrency}, not ${requested.currency.toUpperCase()}`
  }
  if (requested.range) {
    if (lt(tx.fiatAmount, requested.range.min) || lt(requested.range.max, tx.fiatAmount)) {
      return `the service assigned ${tx.fiatAmount}, outside the requested ${requested.range.min}–${requested.range.max}`
    }
  } else if (requested.amount !== undefined && compareOrNull(tx.fiatAmount, requested.amount.toFixed(2)) !== 0) {
    return `the service assigned ${tx.fiatAmount}, not the requested ${requested.amount.toFixed(2)}`
  }
  return null
}

function compareOrNull(a: string, b: string): number | null {
  const [x, y] = [parseDecimal(a), parseDecimal(b)]
  return x === null || y === null ? null : compare(x, y)
}
