import type { LedgerRow } from "../../modules/payin/ledger/types"
import { sameAmount, sessionAmount } from "../../money"

export const REUSE_MIN_SECONDS_LEFT = 60
export const MAX_CREATIONS_PER_COLLECTION = 5
export const CREATION_WINDOW_SECONDS = 600

export type WantedPayin = {
  providerId: string
  /** Major units. */
  amount: string
  /** Lower case. */
  currencyCode: string
  method?: string | null
  bank?: string | null
}

const time = (value: unknown): number => (value instanceof Date ? value.getTime() : typeof value === "string" ? Date.parse(value) : NaN)

export function isReusable(row: LedgerRow, wanted: WantedPayin, now = Date.now()): boolean {
  if (row.provider_id !== wanted.providerId || row.status !== "active") return false
  if (row.paid_at || row.store_canceled_at || row.order_id || row.deleted_at) return false
  if (!row.service_id || !row.requisite || !row.service_data) return false
  if ((row.flag_kinds && row.flag_kinds.length) || (row.flags && Object.keys(row.flags as object).length)) return false
  const expires = time(row.expires_at)
  if (!Number.isFinite(expires) || expires - now <= REUSE_MIN_SECONDS_LEFT * 1000) return false
  if (row.currency_code.toLowerCase() !== wanted.currencyCode.toLowerCase()) return false
  if (!sameAmount(sessionAmount(row), wanted.amount, wanted.currencyCode)) return false
  if (wanted.method && row.method !== wanted.method) return false
  if (wanted.bank && row.bank !== wanted.bank) return false
  return true
}

/** Best first: the rows come newest first. */
export function reusableCandidates(rows: LedgerRow[], wanted: WantedPayin, now = Date.now()): LedgerRow[] {
  return rows.filter((row) => isReusable(row, wanted, now))
}

export function overCreationCap(count: number, { including }: { including: boolean }): boolean {
  return including ? count > MAX_CREATIONS_PER_COLLECTION : count >= MAX_CREATIONS_PER_COLLECTION
}

/**
 * Money of the collection's earlier pay-in that the store books (or booked) for this cart, so new
 * details would take it twice. Not a stray payment: paid into a pay-in whose session Medusa deleted
 * (the cart changed), never captured nor taken by a new session; it is flagged for the merchant
 * and the changed cart is paid anew (soak seed 1: such a cart could not be paid at all).
 */
export function paidForThisCart(row: Pick<LedgerRow, "paid_at" | "captured_at" | "session_deleted_at" | "reattach_requested_at">): boolean {
  return Boolean(row.paid_at) && !(row.session_deleted_at && !row.captured_at && !row.reattach_requested_at)
}
