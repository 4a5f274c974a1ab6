import { OPEN_STATUSES } from "../../../status"
import type { Db } from "../db"

/** History ids are serial, so old rows have low ids: pruning walks them by id, never scanning the table for the rows to keep. */
export class LedgerHistory {
  constructor(private readonly db: () => Db) {}

  async pruneBound(days: number): Promise<number> {
    const { rows } = await this.db().raw(
      `select coalesce(max(id), 0)::int as id from (
         select id from payin_status_change where created_at < now() - (? * interval '1 day') order by id desc limit 1
       ) as newest`,
      [days]
    )
    return Number(rows[0]?.id ?? 0)
  }

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
