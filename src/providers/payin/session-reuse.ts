import type { LedgerRow } from "../../modules/payin/ledger/types"
import { sameAmount, sessionAmount } from "../../money"

/**
 * Every new payment session of a payment collection used to create a pay-in at the service, and
 * each one holds a trader's requisites for its whole payment window: one cart looping
 * `POST /store/payment-collections/:id/payment-sessions` could use up the merchant's requisites.
 * So a new session of the same collection re-shows the live pay-in when it is the same payment
 * (below), and creations per collection are capped in a sliding window, counted in the ledger
 * (PostgreSQL: the same for every Medusa process).
 */

/** A live pay-in is re-shown only while more than this much of its payment window is left. */
export const REUSE_MIN_SECONDS_LEFT = 60
/** At most this many pay-ins (requests to the service) per payment collection … */
export const MAX_CREATIONS_PER_COLLECTION = 5
/** … within this many seconds. */
export const CREATION_WINDOW_SECONDS = 600

/** The payment a new session asks for. `method` and `bank` only when the shopper chose them. */
export type WantedPayin = {
  providerId: string
  /** Major units, as the ledger stores the session amount. */
  amount: string
  /** Lower case. */
  currencyCode: string
  method?: string | null
  bank?: string | null
}

const time = (value: unknown): number => (value instanceof Date ? value.getTime() : typeof value === "string" ? Date.parse(value) : NaN)

/**
 * Whether a ledger row is a live pay-in that a new session for `wanted` may show again: the same
 * provider instance, amount and currency (and the shopper's bank and method, when chosen), active
 * at the service, unpaid, not ended by the store, no order placed on it, never flagged (e.g. a
 * refused created_mismatch), its requisites known, and more than REUSE_MIN_SECONDS_LEFT left.
 */
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

/** The live pay-ins of a collection a new session may re-show, best first (rows come newest first). */
export function reusableCandidates(rows: LedgerRow[], wanted: WantedPayin, now = Date.now()): LedgerRow[] {
  return rows.filter((row) => isReusable(row, wanted, now))
}

/** Whether `count` creations in the window already reach the cap (`including` the one being made). */
export function overCreationCap(count: number, { including }: { including: boolean }): boolean {
  return including ? count > MAX_CREATIONS_PER_COLLECTION : count >= MAX_CREATIONS_PER_COLLECTION
}
