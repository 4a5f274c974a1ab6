/**
 * The bounds of the admin's ledger lists (no imports: the admin's bundle reads them too).
 * README "Search, pages and counts" in src/api/README.md.
 */

/**
 * Above this many matching pay-ins a list's `count` is not counted: it is PostgreSQL's estimate
 * (the planner's row estimate, from the table's statistics), and the answer says so.
 */
export const COUNT_CAP = 10_000

/** Deepest `offset` a list takes: deeper pages are read by cursor (an offset reads every row before it). */
export const MAX_OFFSET = 10_000

/** A search with at most this many matches in every searched column is exact (search.ts). */
export const SEARCH_EXACT_CAP = 1000

/** Rows a broad search reads per request, newest first after the cursor (search.ts). */
export const SEARCH_WINDOW = 20_000
