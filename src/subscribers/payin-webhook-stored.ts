import { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { WEBHOOK_STORED_EVENT, inboxDrain } from "../money-path/inbox"

// Runs where Medusa runs subscribers (the worker with the Redis event bus): returns at once, the
// drain applies what the inbox holds, so the event queue is never held by a booking.
export default async function payinWebhookStored({ container }: SubscriberArgs<Record<string, never>>): Promise<void> {
  void inboxDrain(container).wake()
}

export const config: SubscriberConfig = {
  event: WEBHOOK_STORED_EVENT,
  context: { subscriberId: "payin-webhook-stored" },
}
