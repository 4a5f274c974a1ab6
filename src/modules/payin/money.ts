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
    return { flag: "underpayment", details: { ...details, reason: "received in another currency" } }
  }
  const received = MathBN.convert(tx.fiatAmount)
  const expected = MathBN.convert(assigned)
  if (received.eq(expected)) return null
  return { flag: received.lt(expected) ? "underpayment" : "overpayment", details }
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
