import { OPEN_STATUSES } from "../../../status"
import type { Db } from "../db"

/**
 * Retention of the status history (plugin option historyRetentionDays; the retention job,
 * src/money-path/retention.ts, decides when): the history rows of pay-ins that ended (closed,
 * canceled or failed, no Medusa effect pending) more than `days` days ago. The pay-in itself, its
 * amounts, flags and the service's last answer stay in the ledger for good; a pay-in that moves
 * again (a dispute after the close) starts a new history.
 *
 * History ids are serial, so old rows have low ids: a run walks them by id, in batches, up to the
 * newest row older than the window, never scanning the table for the rows to keep.
 */
export class LedgerHistory {
  constructor(private readonly db: () => Db) {}

  /** The highest history id written more than `days` days ago (0 when none): a run's upper bound. */
  async pruneBound(days: number): Promise<number> {
    const { rows } = await this.db().raw(
      `select coalesce(max(id), 0)::int as id from (
         select id from payin_status_change where created_at < now() - (? * interval '1 day') order by id desc limit 1
       ) as newest`,
      [days]
    )
    return Number(rows[0]?.id ?? 0)
  }

  /**
   * Deletes up to `limit` history rows with ids in (`after`, `bound`] of pay-ins that ended more
   * than `days` days ago; returns how many, and the highest id it looked at (the next batch starts
   * after it), or null when it looked at every row up to `bound`.
   */
  async pruneEnded(days: number, after: number, bound: number, limit: number): Promise<{ deleted: number; next: number | null }> {
    const { rows } = await this.db().raw(
      `with looked as (
         select id, transaction_id from payin_status_change
         where id > ? and id <= ? order by id limit ?
       ),
       doomed as (
         select looked.id from looked join payin_transaction t on t.id = looked.transaction_id
         where t.status <> all(?::text[]) and t.effect_pending is null
           and t.status_changed_at < now() - (? * interval '1 day')
       ),
       gone as (delete from payin_status_change h using doomed where h.id = doomed.id returning h.id)
       select (select count(*)::int from gone) as deleted, (select max(id) from looked) as last, (select count(*)::int from looked) as looked`,
      [after, bound, limit, [...OPEN_STATUSES], days]
    )
    const row = rows[0]
    const looked = Number(row.looked)
    return { deleted: Number(row.deleted), next: looked < limit || row.last == null ? null : Number(row.last) }
  }
}
