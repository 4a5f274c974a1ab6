// The money path (`medusa-plugin-payin/money-path`):
// webhook inbox → apply (ledger + Medusa effects), lookups, reconciliation. Plain functions over
// Medusa's container, not Medusa workflows (see README "Reliability" for why).
export { applyPayinEvent, applyPendingEffect } from "./apply"
export type { ApplyPayinEventInput, ApplyPayinEventResult } from "./apply"
export { PAYIN_EVENTS } from "../modules/payin/ledger/events"
export { reconcileWithService } from "./lookup"
export type { ReconcileOneResult } from "./lookup"
export { reconcilePayins, reconcilePayinsScheduled } from "./reconcile"
export type { ReconcileOptions, ReconcileReport } from "./reconcile"
export { receivePayinWebhook, retryWebhookInbox } from "./inbox"
