// Medusa's own workflows that book a paid pay-in (authorize for the order, capture, complete the cart).
import type { MedusaContainer } from "@medusajs/framework/types"
import { MedusaError, Modules, PaymentActions } from "@medusajs/framework/utils"
import {
  authorizePaymentSessionForOrderWorkflow,
  capturePaymentWorkflow,
  completeCartWorkflow,
  processPaymentWorkflow,
} from "@medusajs/medusa/core-flows"
import { gt, remainingToCapture } from "../money"
import { type SessionInfo, capturedOf } from "./session"
import { recordOrderCapturesWorkflow } from "./record-order-captures"

/**
 * A session created after its order was placed (pay again) is still `pending`: marked awaiting
 * authorization first, as completion does. What Medusa captured of the Payment.
 */
export async function authorizeForOrder(container: MedusaContainer, session: SessionInfo, rest: string): Promise<string> {
  if (session.status === "pending") {
    await container.resolve(Modules.PAYMENT).updatePaymentSession({
      id: session.id,
      data: session.data,
      amount: session.amount,
      currency_code: session.currency_code,
      status: "pending_authorization",
    })
  }
  const { result: payment } = await authorizePaymentSessionForOrderWorkflow(container).run({ input: { payment_session_id: session.id } })
  if (!payment) throw new Error(`Medusa left payment session ${session.id} awaiting its authorization`)
  const left = remainingToCapture(rest, capturedOf(payment))
  return gt(left, 0) ? captureRest(container, payment.id, left) : capturedOf(payment)
}

/** What Medusa captured of the Payment, `rest` included. */
export async function captureRest(container: MedusaContainer, paymentId: string, rest: string): Promise<string> {
  const { result } = await capturePaymentWorkflow(container).run({ input: { payment_id: paymentId, amount: rest } })
  return capturedOf(result)
}

export async function completeCart(container: MedusaContainer, sessionId: string, rest: string): Promise<void> {
  await processPaymentWorkflow(container).run({ input: { action: PaymentActions.SUCCESSFUL, data: { session_id: sessionId, amount: rest } } })
}

/** Medusa's refusals to place an order from a cart (stock, an expired promotion…): anything else is retried. */
const REFUSALS: readonly string[] = [MedusaError.Types.NOT_ALLOWED, MedusaError.Types.INVALID_DATA, MedusaError.Types.NOT_FOUND, MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR]

/**
 * The cart of a session Medusa captured in full before its order was placed (a booking cut between
 * processPaymentWorkflow's capture and its completion: soak seed 1, 30 minutes): completed as that
 * workflow's last step would. A refusal leaves the money captured with no order, as it does there.
 */
export async function completeCapturedCart(container: MedusaContainer, cartId: string): Promise<void> {
  try {
    await completeCartWorkflow(container).run({ input: { id: cartId } })
  } catch (error) {
    if (!(MedusaError.isMedusaError(error) && REFUSALS.includes(error.type))) throw error
  }
}

export async function recordOrderCaptures(container: MedusaContainer, orderId: string, paymentId: string): Promise<void> {
  await recordOrderCapturesWorkflow(container).run({ input: { order_id: orderId, payment_id: paymentId } })
}
