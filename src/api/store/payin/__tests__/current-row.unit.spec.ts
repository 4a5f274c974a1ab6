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

  it("passes over a failed pay again for the order's ended pay-in, whose session is not brought back", () => {
    const ended = { id: "a", created_at: ago(60), session_deleted_at: ago(10), status: "canceled", order_id: "order_1" }
    const failed = { id: "b", created_at: ago(10), session_deleted_at: null, status: "failed", order_id: null }
    expect(pickCurrentRow([ended, failed])?.id).toBe("a")
  })
})
