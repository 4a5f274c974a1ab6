import type { BigNumberInput } from "@medusajs/framework/types"
import { PaymentEvents } from "@medusajs/framework/utils"
import { WorkflowResponse, createWorkflow, transform, when } from "@medusajs/framework/workflows-sdk"
import { addOrderTransactionStep, emitEventStep, useQueryGraphStep } from "@medusajs/medusa/core-flows"

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
