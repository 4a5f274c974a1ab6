import { PaymentSessionStatus } from "@medusajs/framework/types"
import type { LedgerStatus } from "../../modules/payin/transitions"

/**
 * The service's pay-in states as Medusa payment-session states. `closed` is money received;
 * open states place the order and wait for the payment (`pending_authorization`); `canceled`
 * ends the session so the shopper can start again.
 */
export function toSessionStatus(status: LedgerStatus): PaymentSessionStatus {
  switch (status) {
    case "closed":
      return "captured"
    case "active":
    case "creating":
    case "dispute":
    case "checking":
    case "re_calculation":
      return "pending_authorization"
    case "canceled":
      return "canceled"
    case "failed":
      return "error"
  }
}

/** What the storefront can tell the shopper about a pay-in that can no longer be paid. */
export const CANCELED_MESSAGE =
  "The payment window for these payment details has ended. Start the payment again to get new details."
