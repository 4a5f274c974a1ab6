import { pickCurrentRow } from "../scope"

const NOW = Date.parse("2025-01-01T12:00:00.000Z")
const ago = (s: number) => new Date(NOW - s * 1000)

describe("pickCurrentRow with re-attached pay-ins", () => {
  it("passes over a newer failed creation while an older pay-in holds a live session", () => {
    const live = { id: "a", created_at: ago(60), session_deleted_at: null, status: "active" }
    const failed = { id: "b", created_at: ago(10), session_deleted_at: null, status: "failed" }
    expect(pickCurrentRow([live, failed])?.id).toBe("a")
    // no live pay-in: the failed attempt is what there is to show
    expect(pickCurrentRow([{ ...live, session_deleted_at: ago(5) }, failed])?.id).toBe("b")
    expect(pickCurrentRow([failed])?.id).toBe("b")
  })
})
