import type { AuthorizePaymentOutput, PaymentSessionStatus } from "@medusajs/framework/types"
import type { LedgerRow } from "../../modules/payin/ledger/types"
import { capturableAmount, eq, notCapturableReason, sessionAmount } from "../../money"
import { sessionStatusOf } from "../../status"

/**
 * The money path's authorize context key (`{ ledger_id, amount }`): the pay-in `ledger_id` is paid
 * and all of `amount`, the session's whole amount, is to be captured now. The provider then
 * answers `captured` when the ledger agrees, and Medusa makes the Payment and its capture in one
 * transaction (see capturedAnswer).
 */
export const CAPTURE_ON_AUTHORIZE_KEY = "payin_capture_on_authorize"

/** On a Payment's data: captured when it was made, by the money path's authorize of this pay-in (its ledger id). */
export const CAPTURED_ON_AUTHORIZE_MARK = "payin_captured_on_authorize"

/**
 * `captured` for the money path's authorize of a paid pay-in whose whole session amount arrived
 * (CAPTURE_ON_AUTHORIZE_KEY names this row and that amount, and the ledger says it may all be
 * booked); null otherwise, and the answer is sessionAnswer's. Medusa captures the whole session
 * amount on `captured`, so it is only answered when that is exactly what arrived.
 */
export function capturedAnswer(row: LedgerRow, data: Record<string, unknown>, context: Record<string, unknown> | undefined): AuthorizePaymentOutput | null {
  const asked = context?.[CAPTURE_ON_AUTHORIZE_KEY] as { ledger_id?: unknown; amount?: unknown } | undefined
  if (!asked || asked.ledger_id !== row.id || typeof asked.amount !== "string") return null
  const capturable = capturableAmount(row)
  if (capturable === null || !eq(capturable, asked.amount) || !eq(sessionAmount(row), asked.amount)) return null
  // kept on Medusa's Payment, written in the same transaction as its capture: the money path
  // knows the capture is its own (and writes the order's transaction for it, also after a crash)
  return { status: "captured" as PaymentSessionStatus, data: { ...data, payin_status: row.status, [CAPTURED_ON_AUTHORIZE_MARK]: row.id } }
}

/** What the storefront can tell the shopper about a pay-in that can no longer be paid. */
export const CANCELED_MESSAGE =
  "The payment window for these payment details has ended. Start the payment again to get new details."

/**
 * The session status the ledger's row means, with the data the storefront reads.
 *
 * Money received is answered `authorized`, not `captured` (Medusa would capture the whole
 * session amount at once): Medusa creates the Payment, and whichever path captures books at most
 * what arrived (see capturableAmount). The one exception is the money path's own authorize of a
 * pay-in whose whole session amount arrived (capturedAnswer). Money of which nothing may be booked (received in another
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
