import { OPEN_STATUSES } from "../../../status"
import type { Db } from "../db"
import type { LedgerRow } from "./types"
import { type LedgerCursor, cursorTimeSql } from "./cursor"
import { COUNT_CAP, SEARCH_EXACT_CAP } from "./limits"
import { type Where, broadPage, probe } from "./search"


/** Rows the export reads per statement (keyset batches). */
export const EXPORT_BATCH = 1000

export type LedgerFilters = {
  status?: string[]
  flags?: string[]
  hasFlags?: boolean
  providerId?: string
  bank?: string
  method?: string
  /** true: money arrived (paid_at); false: not yet or never. */
  paid?: boolean
  /** Created at or after. */
  createdFrom?: Date
  /** Created before. */
  createdBefore?: Date
  orderId?: string
  paymentCollectionIds?: string[]
  q?: string
  limit?: number
  offset?: number
  /** Rows after this position (newest first); combine with offset 0. */
  cursor?: LedgerCursor | null
}

export type LedgerPage = {
  rows: LedgerRow[]
  count: number
  /** `count` is an estimate: the planner's (about), or the cap when more than the cap matched (at least). */
  countIsEstimate: boolean
  /** `count` is a lower bound: at least that many match. */
  countIsLowerBound: boolean
  /** The position after the last row when there are more rows, else null. */
  nextCursor: LedgerCursor | null
}

export type ExportFilters = {
  /** created: by created_at; closed: by paid_at (the first close), pay-ins never closed left out */
  by: "created" | "closed"
  /** inclusive */
  from?: Date
  /** exclusive */
  to?: Date
  status?: string[]
  flags?: string[]
  hasFlags?: boolean
  providerId?: string
}

/** One pay-in as the accounting export reads it (amounts as the exact strings stored). */
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

/** A broad search (more than SEARCH_EXACT_CAP matches in a column) pages by cursor only. */
export class BroadSearchOffsetError extends Error {
  constructor() {
    super(`this search matches more than ${SEARCH_EXACT_CAP.toLocaleString("en")} pay-ins: page it with cursor (the next_cursor of the page before), not offset`)
    this.name = "BroadSearchOffsetError"
  }
}

/**
 * The WHERE clause of the admin's filters but the search; each condition matches an index (README
 * "Indexes"): flags through flag_kinds (GIN, and the flagged partial indexes). The search is
 * search.ts's.
 */
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
  // one condition per filter given, with its value bound
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

/** Read-only views of the ledger for the admin (lists, one pay-in with its history and deliveries, the export). */
export class LedgerQueries {
  constructor(private readonly db: () => Db) {}

  /**
   * The ledger, newest first (created_at, then id), filtered for the admin's transactions page:
   * one page after `cursor` (keyset) or `offset`, and how many match (counted up to COUNT_CAP,
   * estimated above it).
   */
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

  /** One page of the rows matching `where`, newest first, after the filters' cursor or offset. */
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

  /** A list with a search (search.ts): exact when narrow, a window per request when broad. */
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
    // PostgreSQL's estimate of a prefix match is no guide (see search.ts): the count is what is
    // known for certain, more than the cap for the search alone, else the rows found so far
    const searchAlone = where.sql === ledgerWhere({}).sql
    return {
      rows: withoutCursor(page.rows),
      count: searchAlone ? SEARCH_EXACT_CAP : page.rows.length + (page.more ? 1 : 0),
      countIsEstimate: true,
      countIsLowerBound: true,
      nextCursor: page.more ? cursorOf(page.rows[page.rows.length - 1]) : page.windowEnd,
    }
  }

  /** PostgreSQL's planner estimate of the rows matching `where`. */
  private async estimate(where: Where): Promise<number> {
    const plan = await this.db().raw(`explain (format json) select 1 from payin_transaction where ${where.sql}`, where.bindings)
    return planRows(plan.rows[0])
  }

  /**
   * How many rows match, without reading more than COUNT_CAP + 1 index entries: the planner's
   * estimate when it expects more than the cap; else counted, up to the cap + 1 (more than the
   * cap answers the cap as a lower bound).
   */
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

  /**
   * The pay-ins of an export, oldest first by the chosen time, in keyset batches of `batchSize`
   * (one statement each, through an index): the caller asks for the next batch when it has
   * written the last one, so at most one batch is held at a time.
   */
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

  // Reconciliation's selections (src/money-path/reconcile.ts): raw statements on partial indexes.

  /**
   * A page of the open pay-ins (creating, active, in a dispute) created before `olderThan`, by id
   * after `afterId`: what reconciliation looks up. One statement on the partial index of open
   * pay-ins (IDX_payin_transaction_open_id), never reading the closed ones, and no ORM entities
   * (with 1,000,000 pay-ins: p50 1.7 ms per page of 200, against 24.6 ms through the ORM's list).
   */
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

  /**
   * A page of the rows whose Medusa effect is pending and due (`next_effect_at` passed or none),
   * by id after `afterId`, whatever their attempts: what reconciliation retries. One statement on
   * the partial index of pending effects (IDX_payin_transaction_effect_due), rows still backing
   * off skipped on the index.
   */
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

  /** Rows whose effect is pending with fewer than `maxAttempts` failed attempts, due or not (same index). */
  async pendingEffects(limit: number, maxAttempts: number, afterId = ""): Promise<LedgerRow[]> {
    const { rows } = await this.db().raw(
      `select * from payin_transaction
       where effect_pending is not null and effect_attempts < ? and id > ? and deleted_at is null
       order by id limit ?`,
      [maxAttempts, afterId, limit]
    )
    return rows
  }

  /**
   * How many pay-ins were asked for on a payment collection in the last `seconds` (every row,
   * whatever became of it): the provider's cap on creations per cart counts here, so it holds
   * across Medusa processes. On the payment_collection_id index.
   */
  async creationsSince(paymentCollectionId: string, seconds: number): Promise<number> {
    const { rows } = await this.db().raw(
      `select count(*)::int as n from payin_transaction
       where payment_collection_id = ? and deleted_at is null and created_at > now() - (? * interval '1 second')`,
      [paymentCollectionId, seconds]
    )
    return Number(rows[0]?.n ?? 0)
  }
}

/** The top node's row estimate of an `explain (format json)` answer. */
function planRows(row: Record<string, unknown>): number {
  const raw = row["QUERY PLAN"]
  const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: { "Plan Rows": number } }[]
  return Math.round(plan[0].Plan["Plan Rows"])
}
