/**
 * The pay-in status vocabulary (published as `medusa-plugin-payin/status`): statuses, transitions,
 * Medusa session statuses, shopper states, flags and the insights' funnel. No imports, so every
 * bundle (server, admin, storefront kit) can take it; SQL that needs a rule is tested against it.
 */

export const SERVICE_STATUSES = ["active", "closed", "canceled", "dispute", "checking", "re_calculation"] as const
export type ServiceStatus = (typeof SERVICE_STATUSES)[number]

/** `creating`: the request is on its way; `failed`: the service certainly has no pay-in for this session. */
export const LEDGER_ONLY_STATUSES = ["creating", "failed"] as const
export const LEDGER_STATUSES = [...LEDGER_ONLY_STATUSES, ...SERVICE_STATUSES] as const
export type LedgerStatus = (typeof LEDGER_STATUSES)[number]

export const DISPUTE_STATUSES = ["dispute", "checking", "re_calculation"] as const
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number]

/** The outcome is still open without the store doing anything (disputes included). */
export const OPEN_STATUSES = ["creating", "active", ...DISPUTE_STATUSES] as const

export function isDisputeStatus(value: unknown): value is DisputeStatus {
  return typeof value === "string" && (DISPUTE_STATUSES as readonly string[]).includes(value)
}

// The spec fixes active → closed and active → canceled and does not show the dispute moves: any
// dispute status may follow an open, canceled or closed pay-in.
const TRANSITIONS: { readonly [S in LedgerStatus]: readonly LedgerStatus[] } = {
  creating: [...SERVICE_STATUSES, "failed"],
  failed: SERVICE_STATUSES,
  active: ["closed", "canceled", ...DISPUTE_STATUSES],
  canceled: ["closed", ...DISPUTE_STATUSES],
  dispute: ["checking", "re_calculation", "closed", "canceled"],
  checking: ["dispute", "re_calculation", "closed", "canceled"],
  re_calculation: ["dispute", "checking", "closed", "canceled"],
  closed: DISPUTE_STATUSES,
}

const NEVER_AFTER_PAID: readonly LedgerStatus[] = ["creating", "failed", "active", "canceled"]

export type TransitionResult =
  | { changed: true; from: LedgerStatus; to: LedgerStatus }
  | { changed: false; from: LedgerStatus; to: LedgerStatus; reason: "same" | "not_allowed" }

/** `paid`: the pay-in was closed once (then it never returns to active or canceled, even through a dispute). */
export function nextStatus(current: LedgerStatus, incoming: LedgerStatus, { paid = false } = {}): TransitionResult {
  if (current === incoming) {
    return { changed: false, from: current, to: current, reason: "same" }
  }
  if (TRANSITIONS[current].includes(incoming) && !(paid && NEVER_AFTER_PAID.includes(incoming))) {
    return { changed: true, from: current, to: incoming }
  }
  return { changed: false, from: current, to: current, reason: "not_allowed" }
}

export function statusesMovingTo(incoming: LedgerStatus, among: readonly LedgerStatus[] = LEDGER_STATUSES): LedgerStatus[] {
  return among.filter((s) => nextStatus(s, incoming).changed)
}

export type StatusEffect = "capture" | "cancel_order"

export function effectOf(
  to: LedgerStatus,
  { paid = false, captured = false, ended = false }: { paid?: boolean; captured?: boolean; ended?: boolean } = {}
): StatusEffect | null {
  if (to === "closed") return paid || captured ? null : "capture"
  if (to === "canceled") return ended ? null : "cancel_order"
  return null
}

/** Values of Medusa's PaymentSessionStatus this plugin answers. */
export type MedusaSessionStatus = "authorized" | "pending_authorization" | "canceled" | "error"

/**
 * Never `captured`: Medusa would capture the whole session amount, whatever arrived. The provider
 * answers `captured` only when the ledger says all of it arrived (providers/payin/answer.ts).
 */
export function sessionStatusOf(status: LedgerStatus, { paid = false } = {}): MedusaSessionStatus {
  if (status === "closed" || paid) return "authorized"
  if (status === "canceled") return "canceled"
  if (status === "failed") return "error"
  return "pending_authorization"
}

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

/** Polling stops, requisites are hidden. */
export const FINAL_SHOPPER_STATES: readonly ShopperState[] = ["paid", "expired", "canceled", "failed"]
/** Requisites are shown. */
export const OPEN_SHOPPER_STATES: readonly ShopperState[] = ["pending", "awaiting_payment", "in_review"]

export function isFinalShopperState(state: ShopperState): boolean {
  return FINAL_SHOPPER_STATES.includes(state)
}

/** `endedByStore`: the store ended it (order canceled, session deleted) while the service may still hold it open. */
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
  return "in_review"
}

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

/** An effect past its retries, by effect (health's `effects_failing` counts them). */
export const EFFECT_FAILED_FLAG = { capture: "capture_failed", cancel_order: "order_cancel_failed" } as const satisfies Record<StatusEffect, PayinFlag>
export const EFFECT_FAILED_FLAGS: readonly PayinFlag[] = Object.values(EFFECT_FAILED_FLAG)

/** A paid pay-in with one of these is not captured on purpose (health's `paid_not_captured` leaves it out). */
export const UNCAPTURED_EXPLAINED_FLAGS = [
  "stray_payment",
  "late_payment",
  "unknown_payin",
  "paid_without_order",
  "underpayment",
  "created_mismatch",
] as const satisfies readonly PayinFlag[]

/**
 * The funnel: every pay-in is in exactly one part, so the parts add up to the pay-ins created.
 * - `paid`: the money arrived (`paid_at` set, which `closed` always has), whatever followed (a dispute)
 * - `ended_unpaid`: canceled (the window ended, or the store ended it) with nothing paid
 * - `open`: being created or awaiting payment, nothing paid
 * - `disputed_unpaid`: in a dispute, check or recalculation, nothing paid
 * - `failed`: could not be created
 */
export const FUNNEL_PARTS = ["paid", "ended_unpaid", "open", "disputed_unpaid", "failed"] as const
export type FunnelPart = (typeof FUNNEL_PARTS)[number]

const UNPAID_PART: { readonly [S in LedgerStatus]: FunnelPart } = {
  creating: "open",
  active: "open",
  dispute: "disputed_unpaid",
  checking: "disputed_unpaid",
  re_calculation: "disputed_unpaid",
  canceled: "ended_unpaid",
  failed: "failed",
  closed: "paid",
}

export function funnelPartOf(status: LedgerStatus, { paid = false } = {}): FunnelPart {
  return paid ? "paid" : UNPAID_PART[status]
}

/** The statuses whose pay-ins with nothing paid are in `part` (none for `paid`: any status once paid). */
export function statusesOfPart(part: Exclude<FunnelPart, "paid">): LedgerStatus[] {
  return LEDGER_STATUSES.filter((s) => UNPAID_PART[s] === part)
}

/**
 * The flags the insights count: a pay-in with any of a figure's flags counts for it; `amount` is
 * the flag's detail the figure sums (written by money/received.ts), null: what arrived.
 */
export const INSIGHT_FLAGS = {
  underpaid: { flags: ["underpayment"], amount: "missing_amount" },
  overpaid: { flags: ["overpayment"], amount: "excess_amount" },
  stray: { flags: ["stray_payment", "late_payment"], amount: null },
} as const satisfies Record<string, { flags: readonly PayinFlag[]; amount: string | null }>
export type InsightFlagFigure = keyof typeof INSIGHT_FLAGS

/**
 * The currency each of the insights' amounts is counted in: `arrived`, the one the money came in
 * (the service's `fiatCurrency`; the pay-in's own when it named none); `asked`, the pay-in's own
 * (what was missing or extra is a part of what was asked). The pay-in counters have no currency.
 */
export const INSIGHT_AMOUNT_CURRENCY = {
  paid: "arrived",
  received: "arrived",
  underpaid: "asked",
  overpaid: "asked",
  stray: "arrived",
} as const satisfies Record<"paid" | "received" | InsightFlagFigure, "arrived" | "asked">
export type InsightAmount = keyof typeof INSIGHT_AMOUNT_CURRENCY
