import fc from "fast-check"
import {
  DISPUTE_STATUSES,
  effectOf,
  FINAL_SHOPPER_STATES,
  FUNNEL_PARTS,
  funnelPartOf,
  INSIGHT_FLAGS,
  LEDGER_STATUSES,
  OPEN_STATUSES,
  PAYIN_FLAGS,
  SERVICE_STATUSES,
  ServiceStatus,
  nextStatus,
  sessionStatusOf,
  shopperStateOf,
  statusesMovingTo,
  statusesOfPart,
} from "../status"

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

  it("failed is a ledger state reached only from creating", () => {
    expect(nextStatus("creating", "failed")).toMatchObject({ changed: true, to: "failed" })
    for (const s of SERVICE_STATUSES) {
      expect(nextStatus(s, "failed")).toMatchObject({ changed: false, reason: "not_allowed" })
    }
    expect(nextStatus("failed", "active")).toMatchObject({ changed: true })
  })

  it("a paid pay-in may move into a dispute, but never back to active or canceled", () => {
    for (const d of DISPUTE_STATUSES) {
      expect(nextStatus("closed", d)).toMatchObject({ changed: true, to: d })
      expect(nextStatus(d, "canceled", { paid: true })).toMatchObject({ changed: false, reason: "not_allowed" })
      expect(nextStatus(d, "closed", { paid: true })).toMatchObject({ changed: true, to: "closed" })
    }
    expect(nextStatus("closed", "active")).toMatchObject({ changed: false, reason: "not_allowed", to: "closed" })
    expect(nextStatus("closed", "canceled")).toMatchObject({ changed: false, to: "closed" })
    expect(nextStatus("canceled", "active")).toMatchObject({ changed: false, to: "canceled" })
    expect(nextStatus("dispute", "active")).toMatchObject({ changed: false })
  })

  it("repeats change nothing", () => {
    for (const s of LEDGER_STATUSES) {
      expect(nextStatus(s, s)).toMatchObject({ changed: false, reason: "same" })
    }
  })

  it("statusesMovingTo reads the same table", () => {
    expect(statusesMovingTo("active", ["creating", "failed"])).toEqual(["creating", "failed"])
    expect(statusesMovingTo("failed")).toEqual(["creating"])
  })

  it("no sequence of callbacks, in any order or with repeats, brings a paid pay-in back to active or canceled (property)", () => {
    const status = fc.constantFrom<ServiceStatus>(...SERVICE_STATUSES)
    fc.assert(
      fc.property(fc.constantFrom(...LEDGER_STATUSES), fc.array(status, { maxLength: 30 }), (start, events) => {
        let current = start
        let paid = current === "closed"
        let leftActive = current !== "active" && current !== "creating" && current !== "failed"
        for (const event of events) {
          current = nextStatus(current, event, { paid }).to
          if (paid) {
            expect(["closed", ...DISPUTE_STATUSES]).toContain(current)
            expect(sessionStatusOf(current, { paid })).toBe("authorized")
            expect(shopperStateOf(current, { paid })).toBe("paid")
          }
          if (leftActive) {
            expect(current).not.toBe("active")
          }
          paid ||= current === "closed"
          leftActive ||= current !== "active" && current !== "creating" && current !== "failed"
        }
      })
    )
  })
})

describe("sessionStatusOf", () => {
  it("maps ledger statuses to Medusa session statuses", () => {
    expect(sessionStatusOf("closed")).toBe("authorized")
    for (const open of ["creating", "active", ...DISPUTE_STATUSES] as const) {
      expect(sessionStatusOf(open)).toBe("pending_authorization")
      expect(sessionStatusOf(open, { paid: true })).toBe("authorized")
    }
    expect(sessionStatusOf("canceled")).toBe("canceled")
    expect(sessionStatusOf("failed")).toBe("error")
  })
})

describe("shopperStateOf", () => {
  it("gives one answer for every status, known or not", () => {
    expect(shopperStateOf(undefined)).toBe("pending")
    expect(shopperStateOf("creating")).toBe("pending")
    expect(shopperStateOf("active")).toBe("awaiting_payment")
    expect(shopperStateOf("active", { endedByStore: true })).toBe("canceled")
    expect(shopperStateOf("closed")).toBe("paid")
    expect(shopperStateOf("dispute", { paid: true })).toBe("paid")
    for (const d of DISPUTE_STATUSES) expect(shopperStateOf(d)).toBe("in_review")
    expect(shopperStateOf("canceled")).toBe("expired")
    expect(shopperStateOf("failed")).toBe("failed")
    expect(shopperStateOf("something_new")).toBe("in_review")
    expect(FINAL_SHOPPER_STATES).toEqual(["paid", "expired", "canceled", "failed"])
  })
})

describe("effectOf", () => {
  it("asks for a capture once money arrives, and for ending the order when the window ended", () => {
    expect(effectOf("closed")).toBe("capture")
    expect(effectOf("closed", { paid: true })).toBeNull() // closed again after a dispute
    expect(effectOf("closed", { captured: true })).toBeNull()
    expect(effectOf("canceled")).toBe("cancel_order")
    expect(effectOf("canceled", { ended: true })).toBeNull()
    for (const s of ["active", "dispute", "checking", "re_calculation", "failed"] as const) expect(effectOf(s)).toBeNull()
  })
})

describe("funnelPartOf", () => {
  it("puts every pay-in in exactly one part of the funnel, for every status, paid or not", () => {
    // prettier-ignore
    const table: Record<(typeof LEDGER_STATUSES)[number], [unpaid: string, paid: string]> = {
      creating:       ["open",            "paid"],
      active:         ["open",            "paid"],
      dispute:        ["disputed_unpaid", "paid"],
      checking:       ["disputed_unpaid", "paid"],
      re_calculation: ["disputed_unpaid", "paid"],
      canceled:       ["ended_unpaid",    "paid"],
      failed:         ["failed",          "paid"],
      closed:         ["paid",            "paid"],
    }
    for (const status of LEDGER_STATUSES) {
      const got = [funnelPartOf(status), funnelPartOf(status, { paid: true })]
      expect([status, got]).toEqual([status, table[status]])
      for (const part of got) expect(FUNNEL_PARTS).toContain(part)
    }
  })

  it("agrees with the dispute and open sets: a dispute with nothing paid is a part of its own, not uncounted", () => {
    expect(statusesOfPart("disputed_unpaid")).toEqual([...DISPUTE_STATUSES])
    expect(statusesOfPart("open")).toEqual(["creating", "active"])
    expect([...statusesOfPart("open"), ...statusesOfPart("disputed_unpaid")].sort()).toEqual([...OPEN_STATUSES].sort())
    expect(statusesOfPart("ended_unpaid")).toEqual(["canceled"])
    expect(statusesOfPart("failed")).toEqual(["failed"])
  })

  it("counts flags the vocabulary has", () => {
    for (const { flags } of Object.values(INSIGHT_FLAGS)) for (const flag of flags) expect(PAYIN_FLAGS).toContain(flag)
  })
})
