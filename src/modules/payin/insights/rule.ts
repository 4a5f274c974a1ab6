import { INSIGHT_AMOUNT_CURRENCY, INSIGHT_FLAGS, type InsightAmount, type LedgerStatus, funnelPartOf } from "../../../status"
import type { CohortCounts } from "./insights"

/** What the rollups read of a ledger row (the columns the migration's triggers watch). */
export type RollupRow = {
  status: LedgerStatus
  paid_at?: unknown
  captured_at?: unknown
  service_id?: string | null
  disputed_at?: unknown
  flags?: Record<string, Record<string, unknown> | undefined> | null
  pay_again_started?: boolean | null
  pay_again_until?: unknown
  via_pay_again?: boolean | null
  deleted_at?: unknown
  currency_code?: string
  fiat_currency?: string | null
}

const set = (value: unknown) => value !== null && value !== undefined

/**
 * What one pay-in adds to its cohort's counters (the day it was created), as the rollups' SQL
 * (Migration20261129100000) counts it: its funnel part (status.ts), its flags, pay again. A
 * deleted pay-in counts for nothing.
 */
export function cohortCountsOf(row: RollupRow): CohortCounts {
  const part = funnelPartOf(row.status, { paid: set(row.paid_at) })
  const flagged = (figure: keyof typeof INSIGHT_FLAGS) => INSIGHT_FLAGS[figure].flags.some((f) => set(row.flags?.[f]))
  const counts: CohortCounts = {
    created: 1,
    offered: Number(set(row.service_id)),
    paid: Number(part === "paid"),
    ended_unpaid: Number(part === "ended_unpaid"),
    open: Number(part === "open"),
    disputed_unpaid: Number(part === "disputed_unpaid"),
    failed: Number(part === "failed"),
    disputed: Number(set(row.disputed_at)),
    underpaid: Number(flagged("underpaid")),
    overpaid: Number(flagged("overpaid")),
    stray: Number(flagged("stray")),
    pay_again_started: Number(Boolean(row.pay_again_started)),
    pay_again_created: Number(Boolean(row.via_pay_again)),
    // the pay-in whose money was booked for an order whose grace period began
    pay_again_paid: Number(set(row.captured_at) && (set(row.pay_again_until) || Boolean(row.via_pay_again))),
  }
  if (set(row.deleted_at)) for (const key of Object.keys(counts) as (keyof CohortCounts)[]) counts[key] = 0
  return counts
}

/**
 * The currency (lower case) an amount of this pay-in is counted in, as the rollups' SQL
 * (Migration20261129100000) keys it: status.ts INSIGHT_AMOUNT_CURRENCY.
 */
export function currencyOfAmount(row: Pick<RollupRow, "currency_code" | "fiat_currency">, amount: InsightAmount): string {
  const asked = String(row.currency_code ?? "")
  return (INSIGHT_AMOUNT_CURRENCY[amount] === "arrived" ? (row.fiat_currency ?? asked) : asked).toLowerCase()
}
