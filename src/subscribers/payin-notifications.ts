import { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { PAYIN_EVENTS } from "../modules/payin/ledger/events"
import { NotifyResult, notifyCaptured, notifyExpired, notifyOrderPlaced, notifyPaymentCaptured } from "../notifications/notify"

export default async function payinNotifications({ event, container }: SubscriberArgs<{ id?: string; provider_id?: unknown }>): Promise<void> {
  const id = event.data?.id
  if (!id) return
  let result: NotifyResult
  switch (event.name) {
    case "order.placed":
      result = await notifyOrderPlaced(container, id)
      break
    case "payment.captured":
      result = await notifyPaymentCaptured(container, id)
      break
    case PAYIN_EVENTS.CAPTURED:
      result = await notifyCaptured(container, id, event.name, typeof event.data.provider_id === "string" ? event.data.provider_id : undefined)
      break
    case PAYIN_EVENTS.EXPIRED:
      result = await notifyExpired(container, id, event.name)
      break
    default:
      return
  }
  // The plugin's own events are redelivered by the Redis event bus: throwing has it run this again, on the same notification row.
  if (result.outcome === "failed" && (event.name === PAYIN_EVENTS.CAPTURED || event.name === PAYIN_EVENTS.EXPIRED)) {
    throw new Error(`payin: the ${result.kind} notification of order ${result.order_id ?? "?"} failed; retried by the event bus`)
  }
}

export const config: SubscriberConfig = {
  event: ["order.placed", "payment.captured", PAYIN_EVENTS.CAPTURED, PAYIN_EVENTS.EXPIRED],
}
