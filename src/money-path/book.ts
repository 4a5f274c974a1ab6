import { MedusaContainer } from "@medusajs/framework/types"
import { Modules, PaymentActions, PaymentEvents } from "@medusajs/framework/utils"
import { capturePaymentWorkflow, processPaymentWorkflow } from "@medusajs/medusa/core-flows"
import { type AmountInput, eq, gt } from "../money"
import { CAPTURE_ON_AUTHORIZE_KEY } from "../providers/payin/answer"
import { type SessionCapture, type SessionInfo, capturedOf, capturedOnAuthorizeOf, loadSession, orderOfCart, paymentOfSession } from "./medusa"
import { pauseForTests } from "./test-pause"

// How the capture effect has Medusa book a pay-in's money (effects.ts decides whether and how much).

/**
 * Has Medusa book `rest` of a session: what Medusa then holds (its order, what its payment
 * captured; `sessionGone` when a failed cart completion replaced the session).
 */
export async function book(
  container: MedusaContainer,
  session: SessionInfo,
  rest: string,
  { ledgerId, currency }: { ledgerId: string; currency: string },
  run: { guard: () => Promise<void> }
): Promise<{ orderId: string | null; captured: string; sessionGone: boolean }> {
  if (gt(rest, 0)) {
    await pauseForTests(container, "capture", ledgerId)
    await run.guard()
    if (session.orderId) {
      // The order is placed. The whole session amount arrived and Medusa has no Payment yet (the
      // usual case): one authorize makes the Payment and captures it in one Medusa transaction
      // (the provider answers `captured` to this call only, and marks the Payment as this
      // pay-in's), then the order's transaction for the capture, as Medusa's capture workflow
      // writes it. Otherwise Medusa authorizes the session (its Payment, answered from the ledger)
      // and captures `rest` with capturePaymentWorkflow: the steps processPaymentWorkflow takes
      // for a placed order, without its cart lookups and cart lock (no cart is left to complete).
      const whole = !session.paymentId && eq(rest, session.amount as AmountInput)
      const payment = session.paymentId
        ? { id: session.paymentId }
        : await authorizeSession(container, session.id, whole ? { [CAPTURE_ON_AUTHORIZE_KEY]: { ledger_id: ledgerId, amount: rest } } : {})
      if (capturedOnAuthorizeOf(payment) === ledgerId) {
        // made and captured by this call (a run overtaken before it, holding no token now, stops
        // here and writes nothing; one that got this far before our claim left a Payment our
        // session read would have found): no transaction can name its capture yet
        await run.guard()
        const captured = await recordOrderCaptures(container, session.orderId, payment, currency, { fresh: true })
        if (captured !== null) return { orderId: session.orderId, captured, sessionGone: false }
      }
      await run.guard()
      const { result } = await capturePaymentWorkflow(container).run({ input: { payment_id: payment.id, amount: rest as unknown as number } })
      return { orderId: session.orderId, captured: capturedOf(result), sessionGone: false }
    }
    // paid first: Medusa completes the cart (placing the order) with the payment
    await processPaymentWorkflow(container).run({
      input: { action: PaymentActions.SUCCESSFUL, data: { session_id: session.id, amount: rest as unknown as number } },
    })
  }
  const after = await loadSession(container, session.id)
  if (after?.orderId && after.paymentId && gt(after.capturedAmount, 0)) {
    // captured by an earlier run that stopped before the order's transaction for it was written
    await run.guard()
    await recordOrderCaptures(container, after.orderId, { id: after.paymentId, captures: after.captures }, currency)
  }
  return {
    orderId: after?.orderId ?? (await orderOfCart(container, session.cartId)),
    captured: after ? after.capturedAmount : ((await paymentOfSession(container, session.id))?.captured_amount ?? "0"),
    sessionGone: !after,
  }
}

/** Authorizes a payment session in Medusa's Payment Module: its Payment (thrown when none was made). */
async function authorizeSession(
  container: MedusaContainer,
  sessionId: string,
  context: Record<string, unknown>
): Promise<{ id: string; data?: Record<string, unknown> | null; captures?: SessionCapture[] | null }> {
  const payment = await container.resolve(Modules.PAYMENT).authorizePaymentSession(sessionId, context)
  if (!payment?.id) throw new Error(`Medusa made no payment when authorizing session ${sessionId}`)
  return payment
}

/**
 * The order's transactions for the money path's captures of a payment, as Medusa's capture
 * workflow writes them (addOrderTransactionStep: one per capture, `reference: "capture"`, never
 * twice; they make the order's paid total), and Medusa's `payment.captured` when any was missing.
 * The money path's captures are the ones no user signed (`created_by`): made by its one-step
 * authorize, or by capturePaymentWorkflow when a run stopped before that workflow's own
 * transaction step (Medusa never compensates a capture). A user's capture from the admin is left
 * to its own workflow. `fresh`: the payment was just made and captured by this run, so no
 * transaction names its captures yet. What all of the payment's captures sum to; null when it has none.
 */
async function recordOrderCaptures(
  container: MedusaContainer,
  orderId: string,
  payment: { id: string; captures?: SessionCapture[] | null },
  currency: string,
  { fresh = false }: { fresh?: boolean } = {}
): Promise<string | null> {
  const paymentId = payment.id
  // given: Medusa's answer to the authorize, or the session read (with each capture's author)
  const captures: SessionCapture[] = payment.captures?.length
    ? payment.captures
    : await container.resolve(Modules.PAYMENT).listCaptures({ payment_id: paymentId }, { select: ["id", "amount", "raw_amount", "created_by"] })
  if (!captures.length) return null
  const ours = captures.filter((c) => !c.created_by)
  const orders = container.resolve(Modules.ORDER)
  const existing = ours.length && !fresh
    ? await orders.listOrderTransactions(
        { order_id: orderId, reference: "capture", reference_id: ours.map((c) => c.id) },
        { select: ["reference_id"] }
      )
    : []
  const written = new Set(existing.map((t) => t.reference_id))
  const missing = ours.filter((c) => !written.has(c.id))
  if (missing.length) {
    await orders.addOrderTransactions(
      missing.map((c) => ({
        order_id: orderId,
        amount: (c.raw_amount ?? c.amount) as number,
        currency_code: currency,
        reference: "capture",
        reference_id: c.id,
      }))
    )
    await container.resolve(Modules.EVENT_BUS).emit({ name: PaymentEvents.CAPTURED, data: { id: paymentId } })
  }
  return capturedOf({ captures })
}
