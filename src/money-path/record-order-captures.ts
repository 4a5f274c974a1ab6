import type { BigNumberInput, MedusaContainer } from "@medusajs/framework/types"
import { Modules, PaymentEvents } from "@medusajs/framework/utils"
import { WorkflowResponse, createWorkflow, transform, when } from "@medusajs/framework/workflows-sdk"
import { addOrderTransactionStep, emitEventStep, useQueryGraphStep } from "@medusajs/medusa/core-flows"
import { linksOfCollection } from "../medusa"
import { PAYIN_MODULE } from "../modules/payin/key"
import type PayinModuleService from "../modules/payin/service"
import { isPayinProvider } from "../provider-id"
import { payinLockOptions, withLock } from "./lock"

export type RecordOrderCapturesInput = { order_id: string; payment_id: string }

// Medusa never compensates a capture: a workflow stopped between it and its order transaction left the paid total short.
// Runs under the collection's lock (effects.ts): addOrderTransactionStep checks for an existing one, then inserts.
export const recordOrderCapturesWorkflow = createWorkflow("payin-record-order-captures", (input: RecordOrderCapturesInput) => {
  const { data: payments } = useQueryGraphStep({
    entity: "payment",
    fields: ["id", "currency_code", "captures.id", "captures.amount", "captures.raw_amount", "captures.created_by"],
    filters: { id: input.payment_id },
  })
  const transactions = transform({ payments, input }, ({ payments, input }) => {
    const payment = payments[0] as
      | { currency_code: string; captures?: { id: string; amount: unknown; raw_amount?: unknown; created_by?: string | null }[] }
      | undefined
    return (payment?.captures ?? [])
      .filter((c) => !c.created_by)
      .map((c) => ({
        order_id: input.order_id,
        amount: (c.raw_amount ?? c.amount) as BigNumberInput,
        currency_code: payment!.currency_code,
        reference: "capture",
        reference_id: c.id,
      }))
  })
  const written = addOrderTransactionStep(transactions)
  when({ written }, ({ written }) => Boolean(written && (!Array.isArray(written) || written.length))).then(() => {
    emitEventStep({ eventName: PaymentEvents.CAPTURED, data: { id: input.payment_id } })
  })
  return new WorkflowResponse(written)
})

/**
 * Medusa's addOrderTransactionStep checks for a capture's transaction, then inserts it: two capture
 * workflows of one payment at once (a capture by hand in the admin while the webhook books it: soak
 * seed 1) both insert, and the order's paid total counts the capture twice. Run after every
 * `payment.captured` of a pay-in (Medusa emits it after the insert), under the collection's lock:
 * each capture keeps its first transaction; the others are soft-deleted (Medusa's order module
 * lowers the paid total). Returns how many were removed.
 */
export async function removeDoubledCaptureTransactions(container: MedusaContainer, paymentId: string): Promise<number> {
  const [payment] = await container
    .resolve(Modules.PAYMENT)
    .listPayments({ id: paymentId }, { select: ["id", "provider_id", "payment_collection_id", "captures.id"], relations: ["captures"] })
  const captureIds = (payment?.captures ?? []).map((c) => c.id)
  if (!payment || !isPayinProvider(payment.provider_id) || !captureIds.length) return 0
  const { orderId } = await linksOfCollection(container, payment.payment_collection_id)
  if (!orderId) return 0
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const lock = payinLockOptions((await payin.settings.plugin()).lockTtlSeconds)
  return withLock(container, `payin:collection:${payment.payment_collection_id}`, async () => {
    const orders = container.resolve(Modules.ORDER)
    const transactions = await orders.listOrderTransactions(
      { order_id: orderId, reference: "capture", reference_id: captureIds },
      { select: ["id", "reference_id", "created_at"], order: { created_at: "ASC" } }
    )
    const seen = new Set<string>()
    const doubled = transactions.filter((t) => seen.has(t.reference_id!) || !seen.add(t.reference_id!))
    if (!doubled.length) return 0
    await orders.softDeleteOrderTransactions(doubled.map((t) => t.id))
    container.resolve("logger").warn(
      `payin: order ${orderId} had ${doubled.length} order transaction(s) too many for the captures of payment ${paymentId} (two capture workflows ran at once): removed`
    )
    return doubled.length
  }, lock)
}
