import { MathBN } from "@medusajs/framework/utils"
import type { Transaction } from "../../client/schemas"
import type { PayinFlag } from "../../status"

type Row = {
  amount: string | number
  raw_amount?: { value?: string } | null
  currency_code: string
  assigned_amount?: string | null
}

/** The session amount of a row (major units, exact). */
export function sessionAmount(row: Row): string {
  return String(row.raw_amount?.value ?? row.amount)
}

/**
 * Money received against money assigned: when the service reports what it received (closed, or
 * recalculated after payment), compare it with the amount it assigned at creation (the session
 * amount when the creation answer is not known) and the currency. Null when they agree.
 */
export function compareReceived(
  row: Row,
  tx: Pick<Transaction, "fiatAmount" | "fiatCurrency">
): { flag: Extract<PayinFlag, "underpayment" | "overpayment">; details: Record<string, unknown> } | null {
  const assigned = row.assigned_amount ?? sessionAmount(row)
  const details = {
    assigned_amount: assigned,
    received_amount: tx.fiatAmount,
    currency: row.currency_code.toUpperCase(),
    received_currency: tx.fiatCurrency.toUpperCase(),
  }
  if (tx.fiatCurrency.toLowerCase() !== row.currency_code.toLowerCase()) {
    return { flag: "underpayment", details: { ...details, reason: "received in another currency", captured_amount: "0", missing_amount: assigned } }
  }
  const received = MathBN.convert(tx.fiatAmount)
  const expected = MathBN.convert(assigned)
  if (received.eq(expected)) return null
  const capturable = captureAmount(row, { fiat_amount: tx.fiatAmount, fiat_currency: tx.fiatCurrency })
  const booked = capturable === null ? "0" : decimal(MathBN.convert(capturable))
  // what Medusa books, and how much is missing (or more than asked): the merchant's figures
  return received.lt(expected)
    ? { flag: "underpayment", details: { ...details, captured_amount: booked, missing_amount: decimal(expected.minus(received)) } }
    : { flag: "overpayment", details: { ...details, captured_amount: booked, excess_amount: decimal(received.minus(expected)) } }
}

/** A decimal amount as a plain string with at least two fraction digits ("895.00", "0.50"). */
function decimal(value: ReturnType<typeof MathBN.convert>): string {
  return (value.decimalPlaces() ?? 0) >= 2 ? value.toFixed() : value.toFixed(2)
}

/**
 * What Medusa captures when the pay-in closes: the smaller of the received amount and the
 * session amount (Medusa cannot capture more than was authorised). Null when nothing can be
 * captured in the session's currency.
 */
export function captureAmount(row: Row, received: { fiat_amount: string | null; fiat_currency: string | null }): string | null {
  const session = MathBN.convert(sessionAmount(row))
  if (!received.fiat_amount) return session.toString()
  if (received.fiat_currency && received.fiat_currency.toLowerCase() !== row.currency_code.toLowerCase()) return null
  const got = MathBN.convert(received.fiat_amount)
  return (got.lt(session) ? got : session).toString()
}

/** What the capturable amount of a pay-in needs from its ledger row. */
type PaidRow = Row & {
  paid_at?: Date | string | null
  store_canceled_at?: Date | string | null
  fiat_amount?: string | null
  fiat_currency?: string | null
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
  const rest = MathBN.convert(capturable).minus(MathBN.convert(captured))
  return rest.gt(0) ? rest.toString() : "0"
}

/**
 * Whether the pay-in the service created is the one requested: the same currency, and the
 * amount equal to the fixed amount or inside the range. The reason when it is not.
 */
export function createdMismatch(
  requested: { currency: string; amount?: number; range?: { min: number; max: number } },
  tx: Pick<Transaction, "fiatAmount" | "fiatCurrency">
): string | null {
  if (tx.fiatCurrency.toUpperCase() !== requested.currency.toUpperCase()) {
    return `the service created the pay-in in ${tx.fiatCurrency}, not ${requested.currency.toUpperCase()}`
  }
  const got = MathBN.convert(tx.fiatAmount)
  if (requested.range) {
    if (got.lt(requested.range.min) || got.gt(requested.range.max)) {
      return `the service assigned ${tx.fiatAmount}, outside the requested ${requested.range.min}–${requested.range.max}`
    }
  } else if (requested.amount !== undefined && !got.eq(MathBN.convert(requested.amount.toFixed(2)))) {
    return `the service assigned ${tx.fiatAmount}, not the requested ${requested.amount.toFixed(2)}`
  }
  return null
}
