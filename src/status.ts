/**
 * The pay-in status vocabulary: the one owner of every status rule of the plugin. Server, admin
 * and storefront kit import this file (published as `medusa-plugin-payin/status`); nobody
 * restates it. Plain string literals and no imports, so every bundle can take it as it is.
 *
 * - service statuses (the spec's States) and the ledger's own `creating` / `failed`;
 * - the transition table: the only moves a pay-in's status can make;
 * - the map to Medusa payment-session statuses;
 * - the shopper-facing states, which are final, which are open;
 * - the dispute set.
 */

/** What the service says of a pay-in (spec: States). */
export const SERVICE_STATUSES = ["active", "closed", "canceled", "dispute", "checking", "re_calculation"] as const
export type ServiceStatus = (typeof SERVICE_STATUSES)[number]

/**
 * Ledger-only: `creating` (the request is on its way, the answer not known yet) and `failed`
 * (the service certainly has no pay-in for this session).
 */
export const LEDGER_ONLY_STATUSES = ["creating", "failed"] as const
export const LEDGER_STATUSES = [...LEDGER_ONLY_STATUSES, ...SERVICE_STATUSES] as const
export type LedgerStatus = (typeof LEDGER_STATUSES)[number]

/** The dispute set: a receipt was supplied, a party checks it, or the amount was recalculated. */
export const DISPUTE_STATUSES = ["dispute", "checking", "re_calculation"] as const
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number]

/** Ledger statuses in which the outcome is still open without the store doing anything. */
export const OPEN_STATUSES = ["creating", "active", ...DISPUTE_STATUSES] as const

export function isDisputeStatus(value: unknown): value is DisputeStatus {
  return typeof value === "string" && (DISPUTE_STATUSES as readonly string[]).includes(value)
}

// ---------------------------------------------------------------------------------------------
// Transitions
// ---------------------------------------------------------------------------------------------

/**
 * Allowed moves. The spec fixes creation → active, active → closed (paid) and active → canceled
 * (window ended) and says statuses need not only move forward; it does not show the dispute
 * moves, so any dispute status may follow a pay-in that is open, canceled or closed.
 */
const TRANSITIONS: { readonly [S in LedgerStatus]: readonly LedgerStatus[] } = {
  // first answer from the service: whatever it says; or certainly nothing was created
  creating: [...SERVICE_STATUSES, "failed"],
  // a lookup may find a pay-in the failed request did create after all
  failed: SERVICE_STATUSES,
  active: ["closed", "canceled", ...DISPUTE_STATUSES],
  // the shopper paid after the window (closed), or disputes with a receipt
  canceled: ["closed", ...DISPUTE_STATUSES],
  dispute: ["checking", "re_calculation", "closed", "canceled"],
  checking: ["dispute", "re_calculation", "closed", "canceled"],
  re_calculation: ["dispute", "checking", "closed", "canceled"],
  // the money arrived: a dispute may still follow, but never active or canceled again
  closed: DISPUTE_STATUSES,
}

/** Statuses a pay-in whose money arrived (it was `closed` once) never takes again. */
const NEVER_AFTER_PAID: readonly LedgerStatus[] = ["creating", "failed", "active", "canceled"]

export type TransitionResult =
  | { changed: true; from: LedgerStatus; to: LedgerStatus }
  | { changed: false; from: LedgerStatus; to: LedgerStatus; reason: "same" | "not_allowed" }

/**
 * What applying `incoming` to a pay-in in `current` does. `paid`: the pay-in was closed once
 * (then it never returns to active or canceled, even through a dispute).
 */
export function nextStatus(current: LedgerStatus, incoming: LedgerStatus, { paid = false } = {}): TransitionResult {
  if (current === incoming) {
    return { changed: false, from: current, to: current, reason: "same" }
  }
  if (TRANSITIONS[current].includes(incoming) && !(paid && NEVER_AFTER_PAID.includes(incoming))) {
    return { changed: true, from: current, to: incoming }
  }
  return { changed: false, from: current, to: current, reason: "not_allowed" }
}

/** Statuses from which a move to `incoming` is allowed (e.g. the guard of a one-statement update). */
export function statusesMovingTo(incoming: LedgerStatus, among: readonly LedgerStatus[] = LEDGER_STATUSES): LedgerStatus[] {
  return among.filter((s) => nextStatus(s, incoming).changed)
}

/** The Medusa effect a status asks for: capture the payment, or end the order placed for it. */
export type StatusEffect = "capture" | "cancel_order"

/**
 * What a move into `to` asks Medusa to do: `closed` asks for the capture (once: not again after a
 * dispute, or when it was captured already); `canceled` asks to end the order placed while
 * waiting (unless the store ended it already). Nothing for the other statuses.
 */
export function effectOf(
  to: LedgerStatus,
  { paid = false, captured = false, ended = false }: { paid?: boolean; captured?: boolean; ended?: boolean } = {}
): StatusEffect | null {
  if (to === "closed") return paid || captured ? null : "capture"
  if (to === "canceled") return ended ? null : "cancel_order"
  return null
}

// ---------------------------------------------------------------------------------------------
// Medusa payment-session statuses
// ---------------------------------------------------------------------------------------------

/** The Medusa payment-session statuses this plugin answers (string values of PaymentSessionStatus). */
export type MedusaSessionStatus = "authorized" | "pending_authorization" | "canceled" | "error"

/**
 * A ledger status as a Medusa payment-session status: money received is `authorized` (Medusa
 * creates the Payment; the money path then captures exactly what arrived); open statuses place the
 * order and wait for the payment (`pending_authorization`); `canceled` ends the session so the
 * shopper can start again; `failed` is an error. A pay-in that was paid stays `authorized` through
 * a later dispute.
 *
 * Never `captured` from here: Medusa answers that by capturing the whole session amount at once,
 * whatever amount comes later, so an underpaid pay-in would be booked as paid in full. (The
 * provider answers `captured` only to the money path's own authorize of a pay-in whose whole
 * session amount arrived: providers/payin/answer.ts, capturedAnswer.)
 */
export function sessionStatusOf(status: LedgerStatus, { paid = false } = {}): MedusaSessionStatus {
  if (status === "closed" || paid) return "authorized"
  if (status === "canceled") return "canceled"
  if (status === "failed") return "error"
  return "pending_authorization"
}

// ---------------------------------------------------------------------------------------------
// What the shopper is told
// ---------------------------------------------------------------------------------------------

/**
 * - `pending`: the pay-in is being created (the service's answer is not in yet)
 * - `awaiting_payment`: requisites assigned, the payment window is open
 * - `in_review`: a dispute, check or recalculation is under way at the service, or the service
 *   reports a status this version does not know
 * - `paid`: the money arrived (later disputes are the merchant's business)
 * - `expired`: the payment window ended without payment
 * - `canceled`: the store ended it (order canceled, cart changed): do not pay into it
 * - `failed`: the pay-in could not be created
 */
export const SHOPPER_STATES = ["pending", "awaiting_payment", "in_review", "paid", "expired", "canceled", "failed"] as const
export type ShopperState = (typeof SHOPPER_STATES)[number]

/** States after which nothing changes for the shopper: polling stops, requisites are hidden. */
export const FINAL_SHOPPER_STATES: readonly ShopperState[] = ["paid", "expired", "canceled", "failed"]
/** States in which the shopper may still pay or the outcome is open: requisites are shown. */
export const OPEN_SHOPPER_STATES: readonly ShopperState[] = ["pending", "awaiting_payment", "in_review"]

export function isFinalShopperState(state: ShopperState): boolean {
  return FINAL_SHOPPER_STATES.includes(state)
}

/**
 * The shopper's state of a pay-in. `status` is the ledger's (or the service's) status, null or
 * undefined while none is known; `paid`: it was closed once; `endedByStore`: the store ended it
 * (order canceled, session deleted) while the service may still hold it open.
 */
export function shopperStateOf(
  status: string | null | undefined,
  { paid = false, endedByStore = false }: { paid?: boolean; endedByStore?: boolean } = {}
): ShopperState {
  if (status === "closed" || paid) return "paid"
  if (status === null || status === undefined || status === "" || status === "creating") {
    return endedByStore ? "canceled" : "pending"
  }
  if (status === "active") return endedByStore ? "canceled" : "awaiting_payment"
  if (status === "canceled") return "expired"
  if (status === "failed") return "failed"
  // the dispute set, or a status this version does not know: open, under the service's review
  return "in_review"
}

// ---------------------------------------------------------------------------------------------
// Flags: exceptions the merchant must look at (the ledger's `flags`)
// ---------------------------------------------------------------------------------------------

/**
 * - `late_payment`: paid after the store ended the pay-in (expired, order canceled)
 * - `stray_payment`: paid after Medusa deleted the session (the cart changed), or unknown session
 * - `unknown_payin`: a callback about a pay-in this store never created (or a second pay-in created for
 *   one of its sessions: with `session_payin_id` and a `reason`)
 * - `underpayment` / `overpayment`: the service received another amount than assigned
 * - `created_mismatch`: the service created the pay-in with another currency or an amount outside
 *   the one requested (the session was refused)
 * - `paid_without_order`: paid, but Medusa could not place the order (e.g. out of stock)
 * - `capture_failed` / `order_cancel_failed`: the Medusa effect of a status did not happen after
 *   the bounded number of attempts (reconciliation keeps retrying it, at most hourly; "Reconcile now" at once)
 * - `dispute_after_payment`: a paid pay-in moved into a dispute (the capture stays)
 * - `paid_elsewhere`: the pay-in expired, but another pay-in of the same payment collection was
 *   paid: the order was kept, not canceled
 */
export const PAYIN_FLAGS = [
  "late_payment",
  "stray_payment",
  "unknown_payin",
  "underpayment",
  "overpayment",
  "created_mismatch",
  "paid_without_order",
  "capture_failed",
  "order_cancel_failed",
  "dispute_after_payment",
  "paid_elsewhere",
] as const
export type PayinFlag = (typeof PAYIN_FLAGS)[number]
