import { MedusaContainer } from "@medusajs/framework/types"
import { MathBN, PaymentActions } from "@medusajs/framework/utils"
import { cancelOrderWorkflow, processPaymentWorkflow } from "@medusajs/medusa/core-flows"
import { errorMessage } from "../client/errors"
import type { LedgerNotice, LedgerRow } from "../modules/payin/ledger"
import { capturableAmount, remainingToCapture } from "../modules/payin/money"
import type PayinModuleService from "../modules/payin/service"
import { instanceIdOf } from "../provider-id"
import type { PayinFlag } from "../status"
import { pauseBeforeCaptureForTests } from "./test-pause"
import { loadOrder, loadSession, orderOfCart, paymentOfSession, resolveCollection } from "./medusa"

export type EffectOutcome = { effects: string[]; pending: boolean }

/**
 * Makes Medusa follow the ledger: the effect the last status change asked for (`effect_pending`,
 * recorded in the same commit as the status) is done here, idempotently, and cleared when done.
 * A failure leaves it pending: reconciliation retries it, and after the plugin's
 * effectRetryLimit the pay-in is flagged (capture_failed / order_cancel_failed).
 * - capture (closed): processPaymentWorkflow with `captured` and the amount to book (completes the
 *   cart or captures the placed order's payment); money into a pay-in the store ended or whose
 *   session is gone is flagged, never attached; paid without an order is flagged.
 * - cancel_order (canceled): the store ends the pay-in and, when the setting is on, cancels the
 *   order placed while waiting for the payment, unless another pay-in of its payment collection
 *   was paid.
 */
export async function followInMedusa(container: MedusaContainer, payin: PayinModuleService, row: LedgerRow): Promise<EffectOutcome> {
  const effect = row.effect_pending
  if (!effect) {
    return { effects: [], pending: false }
  }
  const effects: string[] = []
  try {
    if (effect === "capture") {
      await capture(container, payin, row, effects)
    } else {
      await endOrder(container, payin, row, effects)
    }
    return { effects, pending: false }
  } catch (error) {
    const message = errorMessage(error)
    container.resolve("logger").warn(`payin: ${effect} of ${row.id} did not happen yet, will retry: ${message}`)
    await payin.effectFailed(row.id, effect, message)
    return { effects, pending: true }
  }
}

async function capture(container: MedusaContainer, payin: PayinModuleService, row: LedgerRow, effects: string[]): Promise<void> {
  const flag = async (name: PayinFlag, reason: string, extra: Record<string, unknown> = {}) => {
    const ids = await resolveCollection(container, row.payment_collection_id)
    if (
      await payin.flag(row.id, name, {
        reason,
        fiat_amount: row.fiat_amount,
        currency: row.currency_code,
        requisite: row.requisite,
        session_id: row.session_id,
        payment_collection_id: row.payment_collection_id,
        cart_id: row.cart_id ?? ids.cart_id,
        order_id: row.order_id ?? ids.order_id,
        ...extra,
      })
    ) {
      effects.push(`flagged:${name}`)
    }
  }
  if (row.store_canceled_at) {
    await flag("late_payment", "paid after the store ended the pay-in (expired or order canceled)")
    await payin.ledger.effectDone(row.id, "capture", { note: "not captured: late payment" })
    return
  }
  const session = row.session_id ? await loadSession(container, row.session_id) : null
  if (!session) {
    await flag(
      "stray_payment",
      row.session_id ? "paid after Medusa deleted the payment session (the cart changed)" : "pay-in unknown to the store"
    )
    await payin.ledger.effectDone(row.id, "capture", { note: "not captured: stray payment" })
    return
  }
  if (session.orderId && (await loadOrder(container, session.orderId))?.status === "canceled") {
    await payin.ledger.markEndedByStore(row.id, "order canceled before the payment arrived", { order_id: session.orderId })
    await flag("late_payment", "paid after the order was canceled", { order_id: session.orderId })
    await payin.ledger.effectDone(row.id, "capture", { note: "not captured: late payment" })
    return
  }
  const amount = capturableAmount(row)
  if (amount === null) {
    // received in another currency: flagged when recorded; the merchant decides
    await payin.ledger.effectDone(row.id, "capture", { note: "not captured: received in another currency" })
    return
  }
  // Capture up to what arrived, less what Medusa captured already (another path, an admin): the
  // provider's capturePayment refuses anything beyond it, so no path books the difference twice.
  const rest = remainingToCapture(amount, session.capturedAmount)
  if (MathBN.gt(rest, 0)) {
    await pauseBeforeCaptureForTests(container, row.id)
    await processPaymentWorkflow(container).run({
      input: { action: PaymentActions.SUCCESSFUL, data: { session_id: session.id, amount: rest as unknown as number } },
    })
  }
  const after = await loadSession(container, session.id)
  const orderId = after?.orderId ?? (await orderOfCart(container, session.cartId))
  const captured = after ? after.capturedAmount : ((await paymentOfSession(container, session.id))?.captured_amount ?? "0")
  const booked = MathBN.gte(captured, amount)
  if (orderId && booked) {
    effects.push("captured")
    await payin.ledger.effectDone(row.id, "capture", { captured: true, order_id: orderId, cart_id: session.cartId })
    await announce(container, payin, row, { kind: "captured", order_id: orderId })
    return
  }
  if (!orderId && (booked || !after)) {
    // Medusa took the payment, then could not place the order (out of stock, …) and its
    // compensation replaced the session: the money is in, no order exists. The merchant decides.
    await flag("paid_without_order", "paid, but Medusa could not place the order from the cart", { cart_id: session.cartId })
    await payin.ledger.effectDone(row.id, "capture", { captured: MathBN.gt(captured, 0), cart_id: session.cartId })
    return
  }
  throw new Error(
    `Medusa captured ${captured} of ${amount} for session ${session.id} (cart ${session.cartId ?? "?"}, order ${orderId ?? "none"})`
  )
}

async function endOrder(container: MedusaContainer, payin: PayinModuleService, row: LedgerRow, effects: string[]): Promise<void> {
  const session = row.session_id ? await loadSession(container, row.session_id) : null
  const ids = { order_id: session?.orderId ?? null, cart_id: session?.cartId ?? null }
  const instanceId = instanceIdOf(row.provider_id)
  const cancelUnpaid = instanceId ? ((await payin.settings.providerOptions(instanceId))?.cancelUnpaidOrdersOnExpiry ?? true) : false
  const capturedAny = Boolean(session && MathBN.gt(session.collectionCapturedAmount, 0))
  if (session?.orderId && !capturedAny && cancelUnpaid) {
    const paidSibling = (await payin.ledger.ofCollections([session.payment_collection_id])).find((r) => r.id !== row.id && r.paid_at)
    const order = await loadOrder(container, session.orderId)
    if (paidSibling) {
      // a stray payment into an earlier pay-in of this order: keep the order, tell the merchant
      if (
        await payin.flag(row.id, "paid_elsewhere", {
          reason: "expired unpaid, but another pay-in of the same payment collection was paid: the order was kept",
          paid_payin_id: paidSibling.id,
          payment_collection_id: session.payment_collection_id,
          ...ids,
        })
      ) {
        effects.push("flagged:paid_elsewhere")
      }
    } else if (order && order.status !== "canceled") {
      await cancelOrderWorkflow(container).run({ input: { order_id: session.orderId } })
      effects.push("order_canceled")
    }
  }
  await payin.ledger.markEndedByStore(row.id, "payment window ended unpaid", ids)
  await payin.ledger.effectDone(row.id, "cancel_order", { ended: true, ...ids })
  effects.push("ended")
  if (!capturedAny) {
    // not when the order was paid through another pay-in of its payment collection
    const paidElsewhere = async () =>
      Boolean(session && (await payin.ledger.ofCollections([session.payment_collection_id])).some((r) => r.id !== row.id && r.paid_at))
    await announce(
      container,
      payin,
      row,
      { kind: "expired", order_id: ids.order_id, order_canceled: effects.includes("order_canceled") },
      async () => !(await paidElsewhere())
    )
  }
}

/**
 * Emits payin.captured / payin.expired once the effect is committed (shopper notifications are
 * sent by their subscribers, on a worker). Never throws: the money path does not depend on it.
 */
async function announce(
  container: MedusaContainer,
  payin: PayinModuleService,
  row: LedgerRow,
  notice: LedgerNotice,
  when: () => Promise<boolean> = async () => true
): Promise<void> {
  try {
    if (!(await when())) return
    await payin.emit((await payin.ledger.get(row.id)) ?? row, [notice])
  } catch (error) {
    container.resolve("logger").warn(`payin: could not announce ${notice.kind} of ${row.id}: ${errorMessage(error)}`)
  }
}
