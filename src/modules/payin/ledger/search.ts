import type { Db } from "../db"
import type { LedgerRow } from "./types"
import { type LedgerCursor, cursorTimeSql } from "./cursor"
import { SEARCH_EXACT_CAP, SEARCH_WINDOW } from "./limits"

/**
 * The admin's prefix search (`q`) over the ids and requisite numbers of the ledger, in time
 * bounded by the search itself, never by PostgreSQL's guess of how many rows match: its estimate
 * of a prefix match is often off by 100× (ids sharing a long common prefix, the JSON requisite
 * numbers), and a plan chosen on a wrong guess reads the whole ledger (2 s at 1,000,000 pay-ins).
 *
 * 1. The probe reads at most SEARCH_EXACT_CAP + 1 (limits.ts) matches from each searched column's own
 *    prefix index (plans forced to those indexes).
 * 2. Narrow (no column over the cap): the probe found every match. The page and an exact count
 *    come from those rows (primary-key lookups).
 * 3. Broad (a column over the cap): the page comes from the newest SEARCH_WINDOW rows after the
 *    cursor that pass the other filters, read newest first and stopping at the page's end. When
 *    the window runs out first, the page is short (even empty) and `next_cursor` is the window's
 *    last row: the next request searches on from there. The count is a lower bound: more than
 *    the cap for the search alone, the page's rows with other filters.
 */

/** The searched columns: each has a text_pattern_ops index (src/api/README.md "The ledger's indexes"). */
const SEARCHED = ["id", "service_id", "session_id", "order_id", "cart_id", "(requisite ->> 'requisites')", "(requisite ->> 'sbpNumber')"]

export type Where = { sql: string; bindings: unknown[] }

/** A LIKE pattern matching values that start with `q` (its %, _ and \ match themselves). */
const likePrefix = (q: string) => `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The search as one condition: any searched column starts with `q`. */
function searchCondition(q: string): Where {
  const like = likePrefix(q)
  return { sql: `(${SEARCHED.map((c) => `${c} like ?`).join(" or ")})`, bindings: SEARCHED.map(() => like) }
}

export type SearchProbe = { broad: false; ids: string[] } | { broad: true }

/** Step 1: every match when no column has more than the cap, else "broad". */
export async function probe(db: Db, q: string): Promise<SearchProbe> {
  const like = likePrefix(q)
  const arms = SEARCHED.map(
    (c, arm) => `(select ${arm} as arm, id from payin_transaction where ${c} like ? and deleted_at is null limit ${SEARCH_EXACT_CAP + 1})`
  )
  const rows = await db.transaction(async (trx) => {
    // each arm a range scan of its own prefix index, whatever the planner guesses the match count is
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

/**
 * Step 3: a page of a broad search. `filters` are the list's other conditions; `keyset` the
 * cursor's condition. `windowEnd` is the window's last row when the window ran out before the
 * page was full and rows follow it, else null.
 */
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
