import { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { PAYIN_MODULE } from "../modules/payin/key"
import type PayinModuleService from "../modules/payin/service"

/**
 * Links the pay-ins of a newly placed order to it on the ledger, so the admin's transactions page
 * links every row to its order from the start (an order placed before payment waits for it).
 */
export default async function payinOrderPlaced({ event, container }: SubscriberArgs<{ id: string }>): Promise<void> {
  const orderId = event.data?.id
  if (!orderId) return
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data: links } = await query.graph({
    entity: "order_payment_collection",
    fields: ["payment_collection_id"],
    filters: { order_id: orderId },
  })
  const collectionIds = (links as { payment_collection_id: string }[]).map((l) => l.payment_collection_id).filter(Boolean)
  if (!collectionIds.length) return
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  for (const row of await payin.ledger.ofCollections(collectionIds)) {
    if (!row.order_id) {
      await payin.ledger.link(row.id, { order_id: orderId }).catch((e: unknown) => {
        container.resolve("logger").warn(`payin: could not link pay-in ${row.id} to order ${orderId}: ${String(e)}`)
      })
    }
  }
}

export const config: SubscriberConfig = {
  event: "order.placed",
}
