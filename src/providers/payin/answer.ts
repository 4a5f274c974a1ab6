import type { AuthorizePaymentOutput } from "@medusajs/framework/types"
import type { LedgerRow } from "../../modules/payin/ledger/types"
import { capturableAmount, eq, notCapturableReason, sameAmount, sessionAmount } from "../../money"
import { sessionStatusOf } from "../../status"

/** What the storefront can tell the shopper about a pay-in that can no longer be paid. */
export const CANCELED_MESSAGE =
  "The payment window for these payment details has ended. Start the payment again to get new details."

/** The session Medusa asks about, as its payment module holds it. */
export type AskedSession = { amount: string; currency_code: string }

/**
 * The status of session `session` that the pay-in attached to it means, the same for every
 * caller (cart completion, the money path, the admin's "authorize"), from the ledger alone:
 * - a pay-in for another amount or currency than the session (or a session that cannot be read):
 *   `error`, so nothing is booked on it;
 * - ended by the store, unpaid: `canceled`;
 * - paid, and all of the session amount may be booked: `captured` (Medusa makes the Payment and
 *   captures the session amount in one transaction, which is then exactly what arrived);
 * - paid in part: `authorized` (the money path captures what arrived);
 * - paid, nothing may be booked (another currency, paid after the store ended it):
 *   `pending_authorization`, as when the order was placed before that money arrived;
 * - otherwise what the status means (status.ts).
 */
export function authorizeAnswer(row: LedgerRow, session: AskedSession | null, data: Record<string, unknown>): AuthorizePaymentOutput {
  const merged: Record<string, unknown> = { ...data, payin_status: row.status }
  if (!session || row.currency_code.toLowerCase() !== session.currency_code.toLowerCase() || !sameAmount(sessionAmount(row), session.amount, session.currency_code)) {
    return { status: "error", data: { ...merged, error_message: "The pay-in is for another amount or currency than this payment session" } }
  }
  const paid = Boolean(row.paid_at)
  if (row.store_canceled_at && !paid) {
    return { status: "canceled", data: { ...merged, error_message: CANCELED_MESSAGE } }
  }
  if (paid) {
    const capturable = capturableAmount(row)
    if (capturable === null) return { status: "pending_authorization", data: { ...merged, payin_not_captured: notCapturableReason(row) } }
    return { status: eq(capturable, session.amount) ? "captured" : "authorized", data: merged }
  }
  const answer = sessionStatusOf(row.status)
  return { status: answer, data: answer === "canceled" ? { ...merged, error_message: CANCELED_MESSAGE } : merged }
}
