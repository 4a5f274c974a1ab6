import { decodeCursor, encodeCursor } from "../cursor"

describe("ledger cursors", () => {
  const position = { at: "2026-05-28T13:55:42.809123Z", id: "payintx_01JABCDEF0123456789ABCDEFG" }

  it("round-trips a position, opaque and URL-safe", () => {
    const cursor = encodeCursor(position)
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(cursor).not.toContain(position.id)
    expect(decodeCursor(cursor)).toEqual(position)
  })

  it("keeps microseconds (two rows a microsecond apart are different positions)", () => {
    const next = { ...position, at: "2026-05-28T13:55:42.809124Z" }
    expect(encodeCursor(next)).not.toBe(encodeCursor(position))
    expect(decodeCursor(encodeCursor(next))?.at).toBe(next.at)
  })

  it("refuses anything it did not encode", () => {
    const b64 = (s: string) => Buffer.from(s).toString("base64url")
    for (const bad of [
      "",
      "not base64!",
      b64("no separator"),
      b64("2026-05-28|payintx_1"),
      b64("2026-05-28T13:55:42.809Z|payintx_1"),
      b64("2026-13-45T99:99:99.000000Z|payintx_1"),
      b64(`${position.at}|`),
      b64(`${position.at}|id with space`),
      b64(`${position.at}|id';drop table x;--`),
      "A".repeat(401),
    ]) {
      expect([bad, decodeCursor(bad)]).toEqual([bad, null])
    }
  })
})
