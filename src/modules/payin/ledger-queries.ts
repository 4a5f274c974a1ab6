import type { Db } from "./db"
import type { LedgerRow } from "./ledger"

export type LedgerFilters = {
  status?: string[]
  flags?: string[]
  hasFlags?: boolean
  providerId?: string
  orderId?: string
  paymentCollectionIds?: string[]
  q?: string
  limit?: number
  offset?: number
}

/** Read-only views of the ledger for the admin (lists, one pay-in with its history and deliveries). */
export class LedgerQueries {
  constructor(private readonly db: () => Db) {}

  /** The ledger, newest first, filtered for the admin's transactions page. */
  async list(filters: LedgerFilters): Promise<{ rows: LedgerRow[]; count: number }> {
    const where: string[] = ["deleted_at is null"]
    const bindings: unknown[] = []
    if (filters.status?.length) {
      where.push(`status = any(?::text[])`)
      bindings.push(filters.status)
    }
    if (filters.flags?.length) {
      where.push("jsonb_exists_any(coalesce(flags, '{}'::jsonb), ?::text[])")
      bindings.push(filters.flags)
    }
    if (filters.hasFlags) {
      where.push(`flags is not null and flags <> '{}'::jsonb`)
    }
    if (filters.providerId) {
      where.push("provider_id = ?")
      bindings.push(filters.providerId)
    }
    if (filters.orderId) {
      where.push("order_id = ?")
      bindings.push(filters.orderId)
    }
    if (filters.paymentCollectionIds?.length) {
      where.push("payment_collection_id = any(?::text[])")
      bindings.push(filters.paymentCollectionIds)
    }
    if (filters.q) {
      const like = `${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
      where.push("(id like ? or service_id like ? or session_id like ? or order_id like ? or cart_id like ?)")
      bindings.push(like, like, like, like, like)
    }
    const clause = where.join(" and ")
    const [rows, count] = await Promise.all([
      this.db().raw(
        `select * from payin_transaction where ${clause} order by created_at desc, id desc limit ? offset ?`,
        [...bindings, filters.limit ?? 20, filters.offset ?? 0]
      ),
      this.db().raw(`select count(*)::int as count from payin_transaction where ${clause}`, bindings),
    ])
    return { rows: rows.rows, count: count.rows[0].count }
  }

  /** One ledger row with its status history and the webhook deliveries about it. */
  async detail(id: string): Promise<{ row: LedgerRow; history: any[]; webhooks: any[] } | null> {
    const found = await this.db().raw("select * from payin_transaction where id = ? and deleted_at is null", [id])
    const row = found.rows[0] as LedgerRow | undefined
    if (!row) {
      return null
    }
    const [history, webhooks] = await Promise.all([
      this.db().raw(
        `select id, from_status, to_status, source, note, created_at from payin_status_change
         where transaction_id = ? and deleted_at is null order by created_at, id`,
        [id]
      ),
      row.service_id
        ? this.db().raw(
            `select id, status, state, attempts, duplicates, last_error, created_at, applied_at, next_attempt_at
             from payin_webhook_event where service_id = ? and provider_id = ? and deleted_at is null
             order by created_at, id`,
            [row.service_id, row.provider_id]
          )
        : Promise.resolve({ rows: [] }),
    ])
    return { row, history: history.rows, webhooks: webhooks.rows }
  }
}
