/**
 * Keyset (cursor) positions in the ledger's order: a row's creation time, to the microsecond as
 * PostgreSQL stores it, and its id (ties broken by id). A cursor is opaque to clients: the
 * base64url of "<time>|<id>"; only what this module encoded decodes.
 */
export type LedgerCursor = { at: string; id: string }

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const ID = /^[A-Za-z0-9_-]{1,128}$/

export function encodeCursor(cursor: LedgerCursor): string {
  return Buffer.from(`${cursor.at}|${cursor.id}`, "utf8").toString("base64url")
}

/** The position a cursor names, or null when it is not one this API returned. */
export function decodeCursor(value: string): LedgerCursor | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(value)) return null
  const text = Buffer.from(value, "base64url").toString("utf8")
  const bar = text.indexOf("|")
  if (bar < 0) return null
  const at = text.slice(0, bar)
  const id = text.slice(bar + 1)
  if (!AT.test(at) || !ID.test(id) || Number.isNaN(Date.parse(at))) return null
  return { at, id }
}

/** SQL: a timestamptz column as a cursor time (UTC, microseconds), e.g. 2026-05-01T10:00:00.123456Z. */
export const cursorTimeSql = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
