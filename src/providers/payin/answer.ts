import type { AuthorizePaymentOutput, PaymentSessionStatus } from "@medusajs/framework/types"
import type { LedgerRow } from "../../modules/payin/ledger/types"
import { capturableAmount, notCapturableReason } from "../../money"
import { sessionStatusOf } from "../../status"

/** What the storefront can tell the shopper about a pay-in that can no longer be paid. */
export const CANCELED_MESSAGE =
  "The payment window for these payment details has ended. Start the payment again to get new details."

/**
 * The session status the ledger's row means, with the data the storefront reads.
 *
 * Money received is answered `authorized`, never `captured` (Medusa would capture the whole
 * session amount at once): Medusa creates the Payment, and whichever path captures books at most
 * what arrived (see capturableAmount). Money of which nothing may be booked (received in another
 * currency, or paid after the store ended the pay-in) places the order awaiting payment, flagged
 * for the merchant, exactly as when the order was placed before that money arrived.
 */
export function sessionAnswer(row: LedgerRow, data: Record<string, unknown>): AuthorizePaymentOutput {
  const paid = Boolean(row.paid_at)
  if (row.store_canceled_at && !paid) {
    // The store already ended this pay-in (expired, order canceled): a late payment must never
    // attach itself to a canceled order.
    return { status: "canceled", data: { ...data, payin_status: row.status, error_message: CANCELED_MESSAGE } }
  }
  if (paid && capturableAmount(row) === null) {
    return {
      status: "pending_authorization",
      data: { ...data, payin_status: row.status, payin_not_captured: notCapturableReason(row) },
    }
  }
  const status = sessionStatusOf(row.status, { paid }) as PaymentSessionStatus
  const merged: Record<string, unknown> = { ...data, payin_status: row.status }
  if (status === "canceled") {
    merged.error_message = CANCELED_MESSAGE
  }
  return { status, data: merged }
}
