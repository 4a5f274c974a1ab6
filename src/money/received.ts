/**
 * What the shopper was asked, what arrived, and what Medusa may book of it. Pure: the ledger's
 * rows and the service's answers in, decimal strings out.
 */
import type { PayinFlag } from "../status"
import { sameCurrency } from "./currency"
import { type Decimal, compare, isPositive, lt, min, parseDecimal, subtract, toMinDigits, toPlain } from "./decimal"

/** The ledger columns that hold the session amount: `raw_amount.value` (exact) or `amount`. */
export type SessionAmountRow = { amount?: unknown; raw_amount?: { value?: unknown } | null }

/** What the money rules read from a ledger row. */
export type MoneyRow = SessionAmountRow & {
  amount: string | number
  currency_code: string
  /** The amount the service assigned at creation (inside a fiatAmountRange it may differ from the session amount). */
  assigned_amount?: string | null
}

/** What the capturable amount of a pay-in needs from its ledger row. */
export type PaidRow = MoneyRow & {
  paid_at?: Date | string | null
  store_canceled_at?: Date | string | null
  fiat_amount?: string | null
  fiat_currency?: string | null
}

/** What the service says it received (or assigned): a 2-decimal string and a currency code. */
export type ServiceAmount = { fiatAmount: string; fiatCurrency: string }

/** The session amount of a row (major units, exact, as the ledger holds it). */
export function sessionAmount(row: SessionAmountRow): string {
  return String(row.raw_amount?.value ?? row.amount)
}

/** A figure for the merchant: plain, at least two fraction digits ("895.00", "0.125"). */
function figure(value: Decimal): string {
  return toMinDigits(value, 2)
}

/**
 * Money received against money assigned: when the service reports what it received (closed, or
 * recalculated after payment), compare it with the amount it assigned at creation (the session
 * amount when the creation answer is not known) and the currency. Null when they agree.
 */
export function compareReceived(
  row: MoneyRow,
  tx: ServiceAmount
): { flag: Extract<PayinFlag, "underpayment" | "overpayment">; details: Record<string, unknown> } | null {
  const assigned = row.assigned_amount ?? sessionAmount(row)
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

/**
 * What Medusa captures when the pay-in closes: the smaller of the received amount and the
 * session amount (Medusa cannot capture more than was authorised). Null when nothing can be
 * captured in the session's currency.
 */
export function captureAmount(row: MoneyRow, received: { fiat_amount: string | null; fiat_currency: string | null }): string | null {
  const session = parseDecimal(sessionAmount(row))
  if (session === null) return null
  if (!received.fiat_amount) return toPlain(session)
  if (received.fiat_currency && !sameCurrency(received.fiat_currency, row.currency_code)) return null
  // an amount that is not a number books nothing (the service's schema never lets one through)
  const smaller = min(received.fiat_amount, session)
  return smaller === null ? null : toPlain(smaller)
}

/**
 * What Medusa may book for a pay-in in all, whichever path captures (the webhook's effect,
 * reconciliation, "Reconcile now", a capture from the admin): the money received, never more
 * than the session amount. Null when nothing may be booked: not paid, received in another
 * currency, or paid after the store had ended the pay-in (the merchant decides about that money).
 * The provider answers Medusa from it and refuses a capture beyond it; the effect captures up to it.
 */
export function capturableAmount(row: PaidRow): string | null {
  if (!row.paid_at || row.store_canceled_at) return null
  return captureAmount(row, { fiat_amount: row.fiat_amount ?? null, fiat_currency: row.fiat_currency ?? null })
}

/** Why nothing of a paid pay-in may be booked (for errors and notes), or null when something may. */
export function notCapturableReason(row: PaidRow): string | null {
  if (!row.paid_at) return "the shopper has not paid yet"
  if (row.store_canceled_at) return "paid after the store ended the pay-in"
  if (capturableAmount(row) === null) return "received in another currency"
  return null
}

/** The amount still to capture: what may be booked minus what Medusa captured already ("0" at most). */
export function remainingToCapture(capturable: string, captured: string | number): string {
  const may = parseDecimal(capturable)
  const done = parseDecimal(captured)
  if (may === null || done === null) return "0"
  const rest = subtract(may, done)
  return isPositive(rest) ? toPlain(rest) : "0"
}

/**
 * Whether the pay-in the service created is the one requested: the same currency, and the
 * amount equal to the fixed amount or inside the range. The reason when it is not.
 */
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
