import { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { collectionsOfOrder } from "../medusa"
import { markLostSessions } from "../money-path/session"
import { PAYIN_MODULE } from "../modules/payin/key"
import type PayinModuleService from "../modules/payin/service"

// Linked on placement, so the admin's transactions page links every row to its order from the start.
export default async function payinOrderPlaced({ event, container }: SubscriberArgs<{ id: string }>): Promise<void> {
  const orderId = event.data?.id
  if (!orderId) return
  const collectionIds = await collectionsOfOrder(container, orderId)
  if (!collectionIds.length) return
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  // the cart is completed: a pay-in of it made before whose session Medusa does not hold is no pay-in of the order
  const rows = await markLostSessions(container, await payin.ledger.ofCollections(collectionIds), new Date())
  for (const row of rows) {
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
