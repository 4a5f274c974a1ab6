/**
 * The one table of allowed moves between pay-in states. Everything that changes a pay-in's status
 * (webhooks, lookups, the admin) goes through `nextStatus`, so a repeated or older state never
 * moves a pay-in backwards: `closed` never returns to `active`, an `active` callback that arrives
 * after `canceled` changes nothing.
 *
 * Ledger-only states: `creating` (request sent, answer not yet known) and `failed` (the service
 * certainly has no pay-in for this session).
 */
export const SERVICE_STATUSES = ["active", "closed", "canceled", "dispute", "checking", "re_calculation"] as const
export type ServiceStatus = (typeof SERVICE_STATUSES)[number]
export const LEDGER_STATUSES = ["creating", "failed", ...SERVICE_STATUSES] as const
export type LedgerStatus = (typeof LEDGER_STATUSES)[number]

const ALLOWED: Record<LedgerStatus, readonly ServiceStatus[]> = {
  // first answer from the service: whatever it says
  creating: SERVICE_STATUSES,
  // a lookup may find a pay-in the failed request did create after all
  failed: SERVICE_STATUSES,
  active: ["closed", "canceled", "dispute", "checking", "re_calculation"],
  // the shopper paid after the window (closed), or disputes with a receipt
  canceled: ["closed", "dispute", "checking", "re_calculation"],
  dispute: ["checking", "re_calculation", "closed", "canceled"],
  checking: ["dispute", "re_calculation", "closed", "canceled"],
  re_calculation: ["closed", "canceled", "dispute", "checking"],
  // terminal: the money is credited
  closed: [],
}

export type TransitionResult =
  | { changed: true; from: LedgerStatus; to: ServiceStatus }
  | { changed: false; from: LedgerStatus; to: LedgerStatus; reason: "same" | "not_allowed" }

/** What applying `incoming` to a pay-in in `current` does. */
export function nextStatus(current: LedgerStatus, incoming: ServiceStatus): TransitionResult {
  if (current === incoming) {
    return { changed: false, from: current, to: current, reason: "same" }
  }
  if (ALLOWED[current].includes(incoming)) {
    return { changed: true, from: current, to: incoming }
  }
  return { changed: false, from: current, to: current, reason: "not_allowed" }
}

export function isTerminal(status: LedgerStatus): boolean {
  return ALLOWED[status].length === 0
}

/** States in which the shopper may still pay or the outcome is still open. */
export const OPEN_STATUSES: readonly LedgerStatus[] = ["creating", "active", "dispute", "checking", "re_calculation"]
