import { OPEN_STATUSES } from "../status"

export type PayAgainRow = {
  id: string
  status: string
  paid_at?: unknown
  store_canceled_at?: unknown
  session_deleted_at?: unknown
  pay_again_until?: unknown
  status_changed_at?: unknown
  expires_at?: unknown
  provider_id: string
}

export type PayAgainOptions = { enabled: boolean; graceHours: number }

const time = (value: unknown): number =>
  value instanceof Date ? value.getTime() : typeof value === "string" || typeof value === "number" ? new Date(value).getTime() : NaN

export function isPayable(row: PayAgainRow, now: number): boolean {
  if (!(OPEN_STATUSES as readonly string[]).includes(row.status) || row.paid_at || row.store_canceled_at || row.session_deleted_at) return false
  const expires = time(row.expires_at)
  return !Number.isFinite(expires) || expires > now
}

/** The earliest end recorded on the order's pay-ins: new pay-ins never extend the grace period. */
export function graceEnd(rows: readonly PayAgainRow[], graceHours: number, endedAt: number): Date {
  const recorded = rows.map((r) => time(r.pay_again_until)).filter(Number.isFinite)
  return new Date(recorded.length ? Math.min(...recorded) : endedAt + graceHours * 3_600_000)
}

export type PayAgainDecision = { kind: "cancel" } | { kind: "wait"; until: Date } | { kind: "other"; until: Date | null; payinId: string }

export function decideEnd(
  row: PayAgainRow,
  orderRows: readonly PayAgainRow[],
  options: PayAgainOptions | null | undefined,
  now: number
): PayAgainDecision {
  const other = orderRows.find((r) => r.id !== row.id && isPayable(r, now))
  const until = options?.enabled ? graceEnd(orderRows, options.graceHours, endedAt(row, now)) : null
  if (other) return { kind: "other", until, payinId: other.id }
  if (until && until.getTime() > now) return { kind: "wait", until }
  return { kind: "cancel" }
}

function endedAt(row: PayAgainRow, now: number): number {
  const changed = time(row.status_changed_at)
  if (Number.isFinite(changed)) return Math.min(changed, now)
  const expires = time(row.expires_at)
  return Number.isFinite(expires) ? Math.min(expires, now) : now
}

export type PayAgainRefusal = "payin_pay_again_off" | "payin_grace_over" | "payin_order_paid" | "payin_order_canceled" | "payin_not_this_provider"

/** A payable pay-in is no refusal: the route answers with it (idempotent). */
export function payAgainRefusal(input: {
  orderRows: readonly PayAgainRow[]
  options: PayAgainOptions | null | undefined
  orderCanceled: boolean
  orderPaid: boolean
  now: number
}): { refusal: PayAgainRefusal | null; until: Date | null } {
  const { orderRows, options, now } = input
  if (!orderRows.length) return { refusal: "payin_not_this_provider", until: null }
  if (input.orderCanceled) return { refusal: "payin_order_canceled", until: null }
  if (input.orderPaid || orderRows.some((r) => r.paid_at)) return { refusal: "payin_order_paid", until: null }
  if (!options?.enabled) return { refusal: "payin_pay_again_off", until: null }
  if (orderRows.some((r) => isPayable(r, now))) return { refusal: null, until: null }
  const ended = orderRows.map((r) => endedAt(r, now))
  const until = graceEnd(orderRows, options.graceHours, Math.min(...ended))
  return until.getTime() > now ? { refusal: null, until } : { refusal: "payin_grace_over", until }
}
