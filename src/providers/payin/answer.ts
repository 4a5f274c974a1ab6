import type { AuthorizePaymentOutput } from "@medusajs/framework/types"
import type { LedgerRow } from "../../modules/payin/ledger/types"
import { capturableAmount, eq, notCapturableReason, sameAmount, sessionAmount } from "../../money"
import { sessionStatusOf } from "../../status"

export const CANCELED_MESSAGE =
  "The payment window for these payment details has ended. Start the payment again to get new details."

export type AskedSession = { amount: string; currency_code: string }

/** `captured` only when all of the session amount arrived: Medusa then captures the whole session amount at once. */
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
