export type LedgerCursor = { at: string; id: string }

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const ID = /^[A-Za-z0-9_-]{1,128}$/

export function encodeCursor(cursor: LedgerCursor): string {
  return Buffer.from(`${cursor.at}|${cursor.id}`, "utf8").toString("base64url")
}

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

/** Microseconds, as PostgreSQL stores them: a millisecond JS Date would make the keyset skip or repeat rows. */
export const cursorTimeSql = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
