// Public workflows of the plugin (`medusa-plugin-payin/workflows`).
export { applyPayinEvent } from "./apply-payin-event"
export type { ApplyPayinEventInput, ApplyPayinEventResult } from "./apply-payin-event"
export { PAYIN_EVENTS } from "./apply-payin-event"
export { reconcilePayin, reconcilePayins } from "./reconcile-payins"
export type { ReconcileOneResult, ReconcileOptions, ReconcileReport } from "./reconcile-payins"
export { receivePayinWebhook, retryWebhookInbox } from "./webhook-inbox"
