import fc from "fast-check"
import { LEDGER_STATUSES, SERVICE_STATUSES, ServiceStatus, nextStatus } from "../transitions"

describe("nextStatus", () => {
  it("moves forward along the spec's transitions", () => {
    expect(nextStatus("creating", "active")).toEqual({ changed: true, from: "creating", to: "active" })
    expect(nextStatus("active", "closed")).toMatchObject({ changed: true, to: "closed" })
    expect(nextStatus("active", "canceled")).toMatchObject({ changed: true, to: "canceled" })
    expect(nextStatus("dispute", "re_calculation")).toMatchObject({ changed: true, to: "re_calculation" })
  })

  it("applies a payment after the window (closed after canceled)", () => {
    expect(nextStatus("canceled", "closed")).toMatchObject({ changed: true, to: "closed" })
  })

  it("never moves backwards or out of closed", () => {
    expect(nextStatus("closed", "active")).toMatchObject({ changed: false, reason: "not_allowed", to: "closed" })
    expect(nextStatus("closed", "canceled")).toMatchObject({ changed: false, to: "closed" })
    expect(nextStatus("canceled", "active")).toMatchObject({ changed: false, to: "canceled" })
    expect(nextStatus("dispute", "active")).toMatchObject({ changed: false })
  })

  it("repeats change nothing", () => {
    for (const s of SERVICE_STATUSES) {
      expect(nextStatus(s, s)).toMatchObject({ changed: false, reason: "same" })
    }
  })

  it("no sequence of callbacks, in any order or with repeats, leaves closed or reaches active again (property)", () => {
    const status = fc.constantFrom<ServiceStatus>(...SERVICE_STATUSES)
    fc.assert(
      fc.property(fc.constantFrom(...LEDGER_STATUSES), fc.array(status, { maxLength: 30 }), (start, events) => {
        let current = start
        let seenClosed = current === "closed"
        let leftActive = current !== "active" && current !== "creating" && current !== "failed"
        for (const event of events) {
          const result = nextStatus(current, event)
          current = result.to
          if (seenClosed) {
            expect(current).toBe("closed")
          }
          if (leftActive) {
            expect(current).not.toBe("active")
          }
          seenClosed ||= current === "closed"
          leftActive ||= current !== "active" && current !== "creating" && current !== "failed"
        }
      })
    )
  })
})
