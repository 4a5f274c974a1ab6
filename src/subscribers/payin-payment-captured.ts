import { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { removeDoubledCaptureTransactions } from "../money-path/record-order-captures"

// Any capture of a pay-in's payment (the webhook's, Reconcile now's, a capture by hand in the admin): its order counts each capture once.
export default async function payinPaymentCaptured({ event, container }: SubscriberArgs<{ id?: string }>): Promise<void> {
  if (event.data?.id) await removeDoubledCaptureTransactions(container, event.data.id)
}

export const config: SubscriberConfig = {
  event: "payment.captured",
}
