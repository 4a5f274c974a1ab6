export { PayinTransaction } from "./payin-transaction"
export { PayinStatusChange } from "./payin-status-change"
export { PayinWebhookEvent } from "./payin-webhook-event"
export { PayinWebhookCounter } from "./payin-webhook-counter"
