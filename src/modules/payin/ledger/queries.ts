import { OPEN_STATUSES } from "../../../status"
import type { Db } from "../db"
import type { LedgerRow } from "./types"
import { type LedgerCursor, cursorTimeSql } from "./cursor"
import { COUNT_CAP, SEARCH_EXACT_CAP } from "./limits"
import { type Where, broadPage, probe } from "./search"


export const EXPORT_BATCH = 1000

export type LedgerFilters = {
  status?: string[]
  flags?: string[]
  hasFlags?: boolean
  providerId?: string
  bank?: string
  method?: string
  paid?: boolean
  createdFrom?: Date
  createdBefore?: Date
  orderId?: string
  paymentCollectionIds?: string[]
  q?: string
  limit?: number
  offset?: number
  cursor?: LedgerCursor | null
}

export type LedgerPage = {
  rows: LedgerRow[]
  count: number
  countIsEstimate: boolean
  countIsLowerBound: boolean
  nextCursor: LedgerCursor | null
}

export type ExportFilters = {
  by: "created" | "closed"
  from?: Date
  to?: Date
  status?: string[]
  flags?: string[]
  hasFlags?: boolean
  providerId?: string
}

export type ExportRow = {
  id: string
  service_id: string | null
  order_id: string | null
  created_at: Date
  paid_at: Date | null
  requested_amount: string
  currency_code: string
  received_amount: string | null
  crypto_amount: string | null
  currency_rate: string | null
  merchant_fee: string | null
  status: string
  flag_kinds: string[] | null
  captured: boolean
}

export class BroadSearchOffsetError extends Error {
  constructor() {
    super(`this search matches more than ${SEARCH_EXACT_CAP.toLocaleString("en")} pay-ins: page it with cursor (the next_cursor of the page before), not offset`)
    this.name = "BroadSearchOffsetError"
  }
}

export function ledgerWhere(filters: Omit<LedgerFilters, "limit" | "offset" | "cursor" | "q">): Where {
  const where: string[] = ["deleted_at is null"]
  const bindings: unknown[] = []
  if (filters.status?.length) {
    where.push("status = any(?::text[])")
    bindings.push(filters.status)
  }
  if (filters.flags?.length) {
    where.push("flag_kinds && ?::text[]")
    bindings.push(filters.flags)
  }
  if (filters.hasFlags) {
    where.push("flag_kinds is not null")
  }
  const conditions: [unknown, string][] = [
    [filters.providerId, "provider_id = ?"],
    [filters.bank, "bank = ?"],
    [filters.method, "method = ?"],
    [filters.createdFrom, "created_at >= ?"],
    [filters.createdBefore, "created_at < ?"],
    [filters.orderId, "order_id = ?"],
  ]
  for (const [value, sql] of conditions) {
    if (value) {
      where.push(sql)
      bindings.push(value)
    }
  }
  if (filters.paid !== undefined) {
    where.push(filters.paid ? "paid_at is not null" : "paid_at is null")
  }
  if (filters.paymentCollectionIds?.length) {
    where.push("payment_collection_id = any(?::text[])")
    bindings.push(filters.paymentCollectionIds)
  }
  return { sql: where.join(" and "), bindings }
}

const keysetOf = (cursor: LedgerCursor | null | undefined): Where =>
  cursor ? { sql: " and (created_at, id) < (?::timestamptz, ?)", bindings: [cursor.at, cursor.id] } : { sql: "", bindings: [] }

type CursorRow = Record<string, unknown> & { cursor_at?: unknown }
const withoutCursor = (rows: CursorRow[]) => rows.map(({ cursor_at: _cursor, ...row }) => row as LedgerRow)
const cursorOf = (row: CursorRow | undefined): LedgerCursor | null => (row ? { at: row.cursor_at as string, id: row.id as string } : null)

export class LedgerQueries {
  constructor(private readonly db: () => Db) {}

  async list(filters: LedgerFilters): Promise<LedgerPage> {
    if (filters.q) return this.search(filters, filters.q)
    const where = ledgerWhere(filters)
    const { rows, more, nextCursor } = await this.page(where, filters)
    // the whole result is on this page: its size is the count
    const offset = filters.offset ?? 0
    if (!filters.cursor && !more && (rows.length > 0 || offset === 0)) {
      return { rows, count: offset + rows.length, countIsEstimate: false, countIsLowerBound: false, nextCursor }
    }
    return { rows, ...(await this.count(where)), nextCursor }
  }

  private async page(where: Where, filters: LedgerFilters): Promise<{ rows: LedgerRow[]; more: boolean; nextCursor: LedgerCursor | null }> {
    const limit = filters.limit ?? 20
    const keyset = keysetOf(filters.cursor)
    const result = await this.db().raw(
      `select *, ${cursorTimeSql("created_at")} as cursor_at from payin_transaction
       where ${where.sql}${keyset.sql}
       order by created_at desc, id desc limit ? offset ?`,
      [...where.bindings, ...keyset.bindings, limit + 1, filters.offset ?? 0]
    )
    const more = result.rows.length > limit
    const page = result.rows.slice(0, limit)
    return { rows: withoutCursor(page), more, nextCursor: more ? cursorOf(page[page.length - 1]) : null }
  }

  private async search(filters: LedgerFilters, q: string): Promise<LedgerPage> {
    const where = ledgerWhere(filters)
    const found = await probe(this.db(), q)
    if (!found.broad) {
      const among = { sql: `${where.sql} and id = any(?::text[])`, bindings: [...where.bindings, found.ids] }
      const [{ rows, nextCursor }, counted] = await Promise.all([
        this.page(among, filters),
        this.db().raw(`select count(*)::int as n from payin_transaction where ${among.sql}`, among.bindings),
      ])
      return { rows, count: counted.rows[0].n as number, countIsEstimate: false, countIsLowerBound: false, nextCursor }
    }
    if (filters.offset) throw new BroadSearchOffsetError()
    const page = await broadPage(this.db(), q, where, keysetOf(filters.cursor), filters.limit ?? 20)
    // PostgreSQL's estimate of a prefix match is no guide (search.ts): only what is known for certain
    const searchAlone = where.sql === ledgerWhere({}).sql
    return {
      rows: withoutCursor(page.rows),
      count: searchAlone ? SEARCH_EXACT_CAP : page.rows.length + (page.more ? 1 : 0),
      countIsEstimate: true,
      countIsLowerBound: true,
      nextCursor: page.more ? cursorOf(page.rows[page.rows.length - 1]) : page.windowEnd,
    }
  }

  private async estimate(where: Where): Promise<number> {
    const plan = await this.db().raw(`explain (format json) select 1 from payin_transaction where ${where.sql}`, where.bindings)
    return planRows(plan.rows[0])
  }

  async count(where: Where): Promise<Pick<LedgerPage, "count" | "countIsEstimate" | "countIsLowerBound">> {
    const estimate = await this.estimate(where)
    if (estimate > COUNT_CAP) {
      return { count: estimate, countIsEstimate: true, countIsLowerBound: false }
    }
    const counted = await this.db().raw(
      `select count(*)::int as count from (select 1 from payin_transaction where ${where.sql} limit ?) as capped`,
      [...where.bindings, COUNT_CAP + 1]
    )
    const count = counted.rows[0].count as number
    return count > COUNT_CAP
      ? { count: COUNT_CAP, countIsEstimate: true, countIsLowerBound: true }
      : { count, countIsEstimate: false, countIsLowerBound: false }
  }

  async *exportBatches(filters: ExportFilters, batchSize = EXPORT_BATCH): AsyncGenerator<ExportRow[]> {
    const key = filters.by === "closed" ? "paid_at" : "created_at"
    const where = ledgerWhere({
      status: filters.status,
      flags: filters.flags,
      hasFlags: filters.hasFlags,
      providerId: filters.providerId,
    })
    const conditions = [where.sql, `${key} is not null`]
    const bindings = [...where.bindings]
    if (filters.from) {
      conditions.push(`${key} >= ?`)
      bindings.push(filters.from)
    }
    if (filters.to) {
      conditions.push(`${key} < ?`)
      bindings.push(filters.to)
    }
    let after: LedgerCursor | null = null
    for (;;) {
      const result: { rows: (ExportRow & { cursor_at: string })[] } = await this.db().raw(
        `select id, service_id, order_id, created_at, paid_at,
           coalesce(raw_amount ->> 'value', amount::text) as requested_amount, currency_code,
           case when paid_at is not null then fiat_amount end as received_amount,
           service_data ->> 'cryptoAmount' as crypto_amount, service_data ->> 'currencyRate' as currency_rate,
           service_data ->> 'merchantFee' as merchant_fee, status, flag_kinds, captured_at is not null as captured,
           ${cursorTimeSql(key)} as cursor_at
         from payin_transaction
         where ${conditions.join(" and ")}${after ? ` and (${key}, id) > (?::timestamptz, ?)` : ""}
         order by ${key}, id limit ?`,
        [...bindings, ...(after ? [after.at, after.id] : []), batchSize]
      )
      if (!result.rows.length) return
      const last = result.rows[result.rows.length - 1]
      after = { at: last.cursor_at, id: last.id }
      yield result.rows
      if (result.rows.length < batchSize) return
    }
  }

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
            `select id, status, state, attempts, duplicates, last_error, result, created_at, applied_at, next_attempt_at
             from payin_webhook_event where service_id = ? and provider_id = ? and deleted_at is null
             order by created_at, id`,
            [row.service_id, row.provider_id]
          )
        : Promise.resolve({ rows: [] }),
    ])
    return { row, history: history.rows, webhooks: webhooks.rows }
  }

  /** Raw SQL, not the ORM: at 1,000,000 pay-ins p50 1.7 ms per page of 200 against 24.6 ms through the ORM's list. */
  async openPage(olderThan: Date, afterId: string, limit: number, ids?: string[]): Promise<LedgerRow[]> {
    const { rows } = await this.db().raw(
      `select id, provider_id, service_id, session_id, status, fiat_amount, effect_pending from payin_transaction
       where status in (${OPEN_STATUSES.map((s) => `'${s}'`).join(", ")}) and created_at < ? and id > ? and deleted_at is null
       ${ids ? "and id = any(?::text[])" : ""}
       order by id limit ?`,
      [olderThan, afterId, ...(ids ? [ids] : []), limit]
    )
    return rows
  }

  async dueEffects(limit: number, afterId = ""): Promise<LedgerRow[]> {
    const { rows } = await this.db().raw(
      `select * from payin_transaction
       where effect_pending is not null and (next_effect_at is null or next_effect_at <= now())
         and id > ? and deleted_at is null
       order by id limit ?`,
      [afterId, limit]
    )
    return rows
  }

  async pendingEffects(limit: number, maxAttempts: number, afterId = ""): Promise<LedgerRow[]> {
    const { rows } = await this.db().raw(
      `select * from payin_transaction
       where effect_pending is not null and effect_attempts < ? and id > ? and deleted_at is null
       order by id limit ?`,
      [maxAttempts, afterId, limit]
    )
    return rows
  }

  /** Counted in the database so the provider's per-cart creation cap holds across Medusa processes. */
  async creationsSince(paymentCollectionId: string, seconds: number): Promise<number> {
    const { rows } = await this.db().raw(
      `select count(*)::int as n from payin_transaction
       where payment_collection_id = ? and deleted_at is null and created_at > now() - (? * interval '1 second')`,
      [paymentCollectionId, seconds]
    )
    return Number(rows[0]?.n ?? 0)
  }
}

function planRows(row: Record<string, unknown>): number {
  const raw = row["QUERY PLAN"]
  const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: { "Plan Rows": number } }[]
  return Math.round(plan[0].Plan["Plan Rows"])
}
