import type { Db } from "../db"

/**
 * The admin's insights, read from the daily rollups (payin_rollup_day, payin_rollup_pay_time)
 * that the ledger's writes keep (statement-level triggers in the writing transaction:
 * Migration20261128100000, the rule as Migration20261129100000 has it). A request sums at most a
 * few thousand rollup rows, never the ledger. Days are UTC days; a pay-in counts for the day it was
 * created (its cohort), the money received for the day it arrived; money in the currency it arrived
 * in (src/api/README.md "Insights" defines each figure).
 */

export type InsightsFilters = {
  /** First day, inclusive (YYYY-MM-DD, UTC). */
  from: string
  /** Last day, inclusive. */
  to: string
  providerId?: string
}

/**
 * What a cohort of pay-ins became (every counter of payin_rollup_day but the received ones).
 * `created` = paid + ended_unpaid + open + disputed_unpaid + failed (status.ts, funnelPartOf);
 * `disputed` (ever in a dispute, paid or not) and the rest are not parts of it.
 */
export type CohortCounts = {
  created: number
  offered: number
  paid: number
  ended_unpaid: number
  open: number
  disputed_unpaid: number
  failed: number
  disputed: number
  underpaid: number
  overpaid: number
  stray: number
  pay_again_started: number
  pay_again_created: number
  pay_again_paid: number
}
/**
 * Amounts per currency (lower case; exact decimal strings): `paid`, what arrived into the period's
 * cohorts (whenever); `received`, what arrived on the period's days (into pay-ins created
 * whenever). What arrived counts in its own currency, what was missing or extra in the one asked
 * (status.ts INSIGHT_AMOUNT_CURRENCY).
 */
export type CurrencyAmounts = Record<string, { paid: string; underpaid: string; overpaid: string; stray: string; received: string }>

export type Conversion = { key: string; offered: number; paid: number; ended_unpaid: number; conversion: number | null }

export type Insights = {
  from: string
  to: string
  provider_id: string | null
  totals: CohortCounts
  amounts: CurrencyAmounts
  /** Paid / offered (pay-ins the shopper got requisites for); null without any. */
  conversion: number | null
  by_bank: Conversion[]
  by_method: Conversion[]
  /** Seconds from creation to payment (histogram estimate: within its bucket's width). */
  time_to_pay: { count: number; p50_seconds: number | null; p90_seconds: number | null }
  /** Pay again: orders whose grace period began, new details given, pay-ins that paid such an order, paid / started. */
  pay_again: { started: number; created: number; paid: number; saved_share: number | null }
  /** Per UTC day: pay-ins created, paid (of those created that day) and the money received that day. */
  days: { day: string; created: number; paid: number; received: number; received_amount: Record<string, string> }[]
  /** The rollups are being rebuilt (README "Insights"): figures count only the pay-ins done so far. */
  rebuild: RebuildState
}

export type RebuildState = { pending: boolean; done: number; after_id: string; started_at: string | null; finished_at: string | null }

const COUNTERS = [
  "created",
  "offered",
  "paid",
  "ended_unpaid",
  "open",
  "disputed_unpaid",
  "failed",
  "disputed",
  "underpaid",
  "overpaid",
  "stray",
  "pay_again_started",
  "pay_again_created",
  "pay_again_paid",
] as const

const sums = COUNTERS.map((c) => `coalesce(sum(${c}), 0)::bigint as ${c}`).join(", ")
const counts = (row: Record<string, unknown>): CohortCounts =>
  Object.fromEntries(COUNTERS.map((c) => [c, Number(row[c] ?? 0)])) as CohortCounts
const share = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null)

export class LedgerInsights {
  constructor(private readonly db: () => Db) {}

  async figures(filters: InsightsFilters): Promise<Insights> {
    const where = `day between ?::date and ?::date and (?::text is null or provider_id = ?)`
    const bind = [filters.from, filters.to, filters.providerId ?? null, filters.providerId ?? null]
    const [totals, amounts, banks, methods, times, days, rebuild] = await Promise.all([
      this.db().raw(`select ${sums} from payin_rollup_day where ${where}`, bind),
      this.db().raw(
        `select currency_code, sum(paid_amount)::text as paid, sum(underpaid_amount)::text as underpaid,
           sum(overpaid_amount)::text as overpaid, sum(stray_amount)::text as stray, sum(received_amount)::text as received
         from payin_rollup_day where ${where} group by currency_code order by currency_code`,
        bind
      ),
      this.conversions("bank", where, bind),
      this.conversions("method", where, bind),
      this.db().raw(
        `select bucket_start, bucket_end, sum(count)::bigint as count from payin_rollup_pay_time where ${where}
         group by bucket_start, bucket_end order by bucket_start`,
        bind
      ),
      this.db().raw(
        `select day::text as day, currency_code, sum(created)::bigint as created, sum(paid)::bigint as paid,
           sum(received)::bigint as received, sum(received_amount)::text as received_amount
         from payin_rollup_day where ${where} group by day, currency_code order by day`,
        bind
      ),
      this.rebuildState(),
    ])
    const total = counts(totals.rows[0] ?? {})
    const histogram = times.rows.map((r: any) => ({ start: Number(r.bucket_start), end: Number(r.bucket_end), count: Number(r.count) }))
    const paidCount = histogram.reduce((n: number, b: { count: number }) => n + b.count, 0)
    return {
      from: filters.from,
      to: filters.to,
      provider_id: filters.providerId ?? null,
      totals: total,
      amounts: Object.fromEntries(
        amounts.rows.map((r: any) => [r.currency_code, { paid: r.paid, underpaid: r.underpaid, overpaid: r.overpaid, stray: r.stray, received: r.received }])
      ),
      conversion: share(total.paid, total.offered),
      by_bank: banks,
      by_method: methods,
      time_to_pay: { count: paidCount, p50_seconds: quantile(histogram, 0.5), p90_seconds: quantile(histogram, 0.9) },
      pay_again: {
        started: total.pay_again_started,
        created: total.pay_again_created,
        paid: total.pay_again_paid,
        saved_share: share(total.pay_again_paid, total.pay_again_started),
      },
      days: groupDays(days.rows),
      rebuild,
    }
  }

  private async conversions(column: "bank" | "method", where: string, bind: unknown[]): Promise<Conversion[]> {
    const { rows } = await this.db().raw(
      `select ${column} as key, sum(offered)::bigint as offered, sum(paid)::bigint as paid, sum(ended_unpaid)::bigint as ended_unpaid
       from payin_rollup_day where ${where} group by ${column} having sum(created) > 0 order by sum(offered) desc, ${column}`,
      bind
    )
    return rows.map((r: any) => {
      const offered = Number(r.offered)
      const paid = Number(r.paid)
      return { key: r.key, offered, paid, ended_unpaid: Number(r.ended_unpaid), conversion: share(paid, offered) }
    })
  }

  async rebuildState(): Promise<RebuildState> {
    const { rows } = await this.db().raw("select after_id, done, started_at, finished_at from payin_rollup_rebuild where id = 1")
    const r = rows[0]
    return {
      pending: Boolean(r && !r.finished_at),
      done: Number(r?.done ?? 0),
      after_id: r?.after_id ?? "",
      started_at: r?.started_at ? new Date(r.started_at).toISOString() : null,
      finished_at: r?.finished_at ? new Date(r.finished_at).toISOString() : null,
    }
  }
}

/**
 * The q-quantile of a histogram of [start, end) buckets (sorted), by linear interpolation inside
 * the bucket it falls in; null when empty. An open last bucket (end beyond a month) answers its start.
 */
export function quantile(buckets: { start: number; end: number; count: number }[], q: number): number | null {
  const total = buckets.reduce((n, b) => n + b.count, 0)
  if (total <= 0) return null
  const rank = q * total
  let seen = 0
  for (const b of buckets) {
    if (b.count <= 0) continue
    if (seen + b.count >= rank) {
      if (b.end - b.start > 31 * 86_400) return b.start
      return Math.round(b.start + ((rank - seen) / b.count) * (b.end - b.start))
    }
    seen += b.count
  }
  const last = buckets[buckets.length - 1]
  return last.start
}

function groupDays(rows: any[]): Insights["days"] {
  const byDay = new Map<string, Insights["days"][number]>()
  for (const r of rows) {
    const day = byDay.get(r.day) ?? { day: r.day, created: 0, paid: 0, received: 0, received_amount: {} as Record<string, string> }
    day.created += Number(r.created)
    day.paid += Number(r.paid)
    day.received += Number(r.received)
    if (Number(r.received) !== 0 || r.received_amount !== "0") day.received_amount[r.currency_code] = r.received_amount
    byDay.set(r.day, day)
  }
  return [...byDay.values()]
}
