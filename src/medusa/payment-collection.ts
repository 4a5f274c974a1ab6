import type { IPaymentModuleService } from "@medusajs/framework/types"

type Refresh = (paymentCollectionId: string) => Promise<void>

/**
 * Has the payment module recount a collection from its sessions, captures and refunds
 * (`maybeUpdatePaymentCollection_`, what each of its captures, refunds and authorizations ends
 * with). Its capturePayment commits the capture, then updates the collection apart: a process or
 * PostgreSQL cut between the two left the collection, and so the order's payment status, behind the
 * capture (soak seed 1, 30 minutes: 1,221.91 captured, the order `authorized`).
 */
export async function refreshPaymentCollection(module: IPaymentModuleService, paymentCollectionId: string): Promise<void> {
  if (!("maybeUpdatePaymentCollection_" in module) || typeof module.maybeUpdatePaymentCollection_ !== "function") {
    throw new Error("the payment module has no maybeUpdatePaymentCollection_")
  }
  await (module.maybeUpdatePaymentCollection_ as Refresh).call(module, paymentCollectionId)
}
