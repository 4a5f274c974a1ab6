import type { Db } from "../db"
import type { LedgerRow } from "./types"
import { type LedgerCursor, cursorTimeSql } from "./cursor"
import { SEARCH_EXACT_CAP, SEARCH_WINDOW } from "./limits"

/** Each needs its text_pattern_ops index: the probe forces its plans onto them. */
const SEARCHED = ["id", "service_id", "session_id", "order_id", "cart_id", "(requisite ->> 'requisites')", "(requisite ->> 'sbpNumber')"]

export type Where = { sql: string; bindings: unknown[] }

const likePrefix = (q: string) => `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

function searchCondition(q: string): Where {
  const like = likePrefix(q)
  return { sql: `(${SEARCHED.map((c) => `${c} like ?`).join(" or ")})`, bindings: SEARCHED.map(() => like) }
}

export type SearchProbe = { broad: false; ids: string[] } | { broad: true }

export async function probe(db: Db, q: string): Promise<SearchProbe> {
  const like = likePrefix(q)
  const arms = SEARCHED.map(
    (c, arm) => `(select ${arm} as arm, id from payin_transaction where ${c} like ? and deleted_at is null limit ${SEARCH_EXACT_CAP + 1})`
  )
  const rows = await db.transaction(async (trx) => {
    // PostgreSQL's prefix estimates are often 100× off, and a plan on a wrong guess read the whole ledger (2 s at 1,000,000)
    await trx.raw("set local enable_seqscan = off")
    await trx.raw("set local enable_bitmapscan = off")
    return (await trx.raw(arms.join(" union all "), SEARCHED.map(() => like))).rows as { arm: number; id: string }[]
  })
  const perArm = new Map<number, number>()
  for (const row of rows) perArm.set(row.arm, (perArm.get(row.arm) ?? 0) + 1)
  if ([...perArm.values()].some((n) => n > SEARCH_EXACT_CAP)) return { broad: true }
  return { broad: false, ids: [...new Set(rows.map((r) => r.id))] }
}

export type SearchPage = { rows: (LedgerRow & { cursor_at: string })[]; more: boolean; windowEnd: LedgerCursor | null }

export async function broadPage(db: Db, q: string, filters: Where, keyset: Where, limit: number): Promise<SearchPage> {
  const search = searchCondition(q)
  const result = await db.raw(
    `select * from (
       select *, ${cursorTimeSql("created_at")} as cursor_at from payin_transaction
       where ${filters.sql}${keyset.sql} order by created_at desc, id desc limit ${SEARCH_WINDOW}
     ) as newest where ${search.sql} order by created_at desc, id desc limit ?`,
    [...filters.bindings, ...keyset.bindings, ...search.bindings, limit + 1]
  )
  const more = result.rows.length > limit
  if (more) return { rows: result.rows.slice(0, limit), more, windowEnd: null }
  const end = await db.raw(
    `select id, ${cursorTimeSql("created_at")} as cursor_at from payin_transaction
     where ${filters.sql}${keyset.sql} order by created_at desc, id desc offset ${SEARCH_WINDOW - 1} limit 2`,
    [...filters.bindings, ...keyset.bindings]
  )
  // the window's last row, when a row follows it
  const last = end.rows.length > 1 ? end.rows[0] : null
  return { rows: result.rows, more, windowEnd: last ? { at: last.cursor_at as string, id: last.id as string } : null }
}
