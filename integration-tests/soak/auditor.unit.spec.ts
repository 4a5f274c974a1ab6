// The soak's pure parts: the auditor's flag rules and 5xx classification, the plant's judgement,
// the merchants' and the faults' schedules (TEST_TYPE=unit; the soak itself is npm run soak).
import { type PayinRecords, type Told, audit, classifyServerErrors, expectedFlags, storeKnew } from "./auditor"
import { type FaultRecord, planFaults } from "./faults"
import { MERCHANT_ACTIONS, planMerchant } from "./merchant"
import { judgePlant } from "./plants"
import { Prng } from "./prng"
import type { ServerError, ServiceMove } from "./shoppers"

const move = (action: string, status: string, fiatAmount: string | null = "1790.00", fiatCurrency = "RUB"): ServiceMove => ({
  action,
  at: 0,
  http: 200,
  status,
  fiatAmount,
  fiatCurrency,
})

/** A pay-in of 1,790.00 RUB with an order of that total; captured as given, the ledger with `flags`. */
function record(moves: ServiceMove[], opts: { captured?: number; flags?: string[]; order?: boolean; status?: string } = {}): PayinRecords {
  const captured = opts.captured ?? 0
  const last = [...moves].reverse().find((m) => m.http === 200)
  const status = opts.status ?? last?.status ?? "active"
  return {
    payinId: "tx_1",
    sessionId: "payses_1",
    service: { status, fiatAmount: last?.fiatAmount ?? "1790.00", fiatCurrency: "RUB" },
    moves,
    window: null,
    medusa: {
      session: { amount: 179_000, currency: "rub", collectionId: "pay_col_1", deleted: false },
      payments: captured ? [{ id: "pay_1", amount: 179_000, canceled: false, captures: [captured] }] : [],
      order:
        opts.order === false
          ? null
          : { id: "order_1", status: "pending", total: 179_000, paymentStatus: captured >= 179_000 ? "captured" : captured ? "partially_captured" : "awaiting", captured, transactions: captured },
    },
    ledger: { id: "payin_1", status, flagKinds: opts.flags ?? [], effectPending: null, orderId: "order_1", history: [] },
  }
}

const want = (r: PayinRecords, captured = 0) => expectedFlags(r, { captured, siblingPaid: false, sessionShared: false })

describe("expectedFlags: the README's flag rules from the service's moves and Medusa's records", () => {
  it("paid exactly: no flag required", () => {
    expect(want(record([move("pay", "closed")]), 179_000).required).toEqual([])
  })

  it("closed for less after a dispute before payment: underpayment only (no dispute_after_payment)", () => {
    const r = record([move("dispute", "dispute"), move("recalculate", "re_calculation", "1500.00"), move("close", "closed", "1500.00")])
    expect(want(r, 150_000).required).toEqual(["underpayment"])
  })

  it("closed for more: overpayment", () => {
    const r = record([move("dispute", "dispute"), move("recalculate", "re_calculation", "2000.00"), move("close", "closed", "2000.00")])
    expect(want(r, 179_000).required).toEqual(["overpayment"])
  })

  it("recalculated to less after the payment: dispute_after_payment and underpayment", () => {
    const r = record([move("pay", "closed"), move("dispute", "dispute"), move("recalculate", "re_calculation", "1500.00")])
    expect(want(r, 179_000).required).toEqual(["dispute_after_payment", "underpayment"])
  })

  it("received in another currency: underpayment", () => {
    expect(want(record([move("pay", "closed", "20.00", "USD")])).required).toEqual(["underpayment"])
  })

  it("paid after the service canceled it: late_payment when nothing was captured, allowed but not required when captured", () => {
    const r = record([move("expire", "canceled"), move("dispute", "dispute"), move("close", "closed")])
    expect(want(r, 0).required).toEqual(["late_payment"])
    expect(want(r, 179_000).required).toEqual([])
    expect(want(r, 179_000).allowed).toContain("late_payment")
  })

  it("money without an order: paid_without_order (stray_payment once the session was deleted)", () => {
    const r = record([move("pay", "closed")], { order: false })
    expect(want(r).required).toEqual(["paid_without_order"])
    r.medusa.session!.deleted = true
    expect(want(r).required).toEqual(["stray_payment"])
  })

  it("a move the service refused counts for nothing", () => {
    const refused = { ...move("recalculate", "re_calculation", "1500.00"), http: 409 }
    expect(want(record([move("pay", "closed"), refused]), 179_000).required).toEqual([])
  })

  it("audit counts a missing and an unexpected flag under flags_match", () => {
    const underpaid = record([move("dispute", "dispute"), move("recalculate", "re_calculation", "1500.00"), move("close", "closed", "1500.00")], { captured: 150_000 })
    const stray = { ...record([move("pay", "closed")], { captured: 179_000, flags: ["stray_payment"] }), payinId: "tx_2", sessionId: "payses_2" }
    stray.medusa.order = { ...stray.medusa.order!, id: "order_2" }
    stray.medusa.session = { ...stray.medusa.session!, collectionId: "pay_col_2" } // another order's collection
    const result = audit([underpaid, stray])
    expect(result.invariants.flags_match).toEqual({ checks: 2, violations: 2 })
    expect(result.flags).toEqual({ missing: { underpayment: 1 }, unexpected: { stray_payment: 1 } })
    expect(result.violations.map((v) => v.invariant)).toEqual(["flags_match", "flags_match"])
  })

  it("audit of records that agree: no violation", () => {
    const r = record([move("dispute", "dispute"), move("recalculate", "re_calculation", "1500.00"), move("close", "closed", "1500.00")], {
      captured: 150_000,
      flags: ["underpayment"],
    })
    expect(audit([r]).violations).toEqual([])
  })
})

describe("what the store was told (seed 83: a paid callback lost, then a dispute before reconciliation's lookup)", () => {
  /** The moves one second apart (sentAt = at), and what reached the store. */
  const timed = (moves: ServiceMove[]) => moves.map((m, i) => ({ ...m, sentAt: i * 1_000, at: i * 1_000 + 5 }))
  const told = (at: number, via: Told["via"], status: string, fiatAmount = "1790.00"): Told => ({ at, via, status, fiatAmount, fiatCurrency: "RUB" })
  const shaped = (moves: ServiceMove[], heard: Told[], opts: { captured?: number; flags?: string[] } = {}) => ({ ...record(timed(moves), opts), told: heard })
  const invariantsOf = (r: PayinRecords) => audit([r]).violations.map((v) => v.invariant)

  it("paid → dispute, every callback lost, the lookup saw the dispute: nothing may be captured, no flag required", () => {
    const moves = [move("pay", "closed"), move("dispute", "dispute")]
    const heard = [told(60_000, "lookup", "dispute")]
    expect(invariantsOf(shaped(moves, heard))).toEqual([])
    expect(want(shaped(moves, heard)).required).toEqual([])
    expect(want(shaped(moves, heard)).allowed).toContain("dispute_after_payment")
    // booking money the store never heard of is a violation too
    expect(invariantsOf(shaped(moves, heard, { captured: 179_000 }))).toEqual(["captured_equals_arrived"])
    // told of the payment (its callback answered 200) then only the dispute's lookup: captured, and flagged
    const paidHeard = [told(10, "callback", "closed"), ...heard]
    expect(invariantsOf(shaped(moves, paidHeard, { captured: 179_000, flags: ["dispute_after_payment"] }))).toEqual([])
    expect(invariantsOf(shaped(moves, paidHeard, { captured: 0 }))).toEqual(["captured_equals_arrived", "flags_match"])
  })

  it("paid → dispute → checking, all lost, looked up in checking: nothing captured, nothing required", () => {
    const r = shaped([move("pay", "closed"), move("dispute", "dispute"), move("checking", "checking")], [told(60_000, "lookup", "checking")])
    expect(invariantsOf(r)).toEqual([])
    expect(want(r).required).toEqual([])
  })

  it("paid → re_calculation to less, all lost: the lookup's recalculation is no underpayment the store could know of", () => {
    const moves = [move("pay", "closed"), move("dispute", "dispute"), move("recalculate", "re_calculation", "1500.00")]
    const r = shaped(moves, [told(60_000, "lookup", "re_calculation", "1500.00")])
    expect(invariantsOf(r)).toEqual([])
    expect(want(r).required).toEqual([])
    expect(want(r).allowed).toEqual(expect.arrayContaining(["dispute_after_payment", "underpayment"]))
    // the callbacks reached it: both required
    const heard = [told(10, "callback", "closed"), told(1_010, "callback", "dispute"), told(2_010, "callback", "re_calculation", "1500.00")]
    expect(want(shaped(moves, heard), 179_000).required).toEqual(["dispute_after_payment", "underpayment"])
  })

  it("paid → dispute → re_calculation → closed, all lost, then looked up closed: captured the recalculated amount, underpayment only", () => {
    const moves = [move("pay", "closed"), move("dispute", "dispute"), move("recalculate", "re_calculation", "1500.00"), move("close", "closed", "1500.00")]
    const heard = [told(60_000, "lookup", "closed", "1500.00")]
    const r = shaped(moves, heard, { captured: 150_000, flags: ["underpayment"] })
    expect(invariantsOf(r)).toEqual([])
    expect(want(r, 150_000).required).toEqual(["underpayment"])
    // the first amount was never told: capturing it is not what arrived as far as the store knew
    expect(invariantsOf(shaped(moves, heard, { captured: 179_000, flags: ["underpayment"] }))).toContain("captured_equals_arrived")
    expect(invariantsOf(shaped(moves, heard, { captured: 150_000 }))).toEqual(["flags_match"])
  })

  it("seed 1's run: the paid callback lost at first and retried after the dispute's: the store saw dispute → checking → closed, no dispute_after_payment owed", () => {
    const moves = [move("pay", "closed"), move("dispute", "dispute"), move("checking", "checking"), move("close", "closed")]
    // the first closed's retry arrives at 2.5 s, before the second close is sent (3 s): matched to the payment, but heard after the dispute
    const heard = [told(1_100, "callback", "dispute"), told(2_100, "callback", "checking"), told(2_500, "callback", "closed"), told(3_100, "callback", "closed")]
    const r = shaped(moves, heard, { captured: 179_000 })
    expect([...storeKnew(r).moves].sort()).toEqual([0, 1, 2, 3])
    expect(want(r, 179_000).required).toEqual([])
    expect(invariantsOf(r)).toEqual([])
    // heard in order: owed
    const inOrder = shaped(moves, [told(100, "callback", "closed"), ...heard.slice(0, 2)], { captured: 179_000 })
    expect(want(inOrder, 179_000).required).toEqual(["dispute_after_payment"])
  })

  it("a pay-in that ends closed counts as told (the drain ends with Reconcile now): its capture is required", () => {
    const r = shaped([move("pay", "closed")], [])
    expect(storeKnew(r).paid).toBe(true)
    expect(invariantsOf(shaped([move("pay", "closed")], [], { captured: 0 }))).toEqual(["captured_equals_arrived"])
  })

  it("a retried callback of a first closed, arriving after a second closed of the same amount, counts as the second", () => {
    const moves = timed([move("pay", "closed"), move("dispute", "dispute"), move("close", "closed")])
    const knew = storeKnew({ ...record(moves), told: [told(1_500, "callback", "dispute"), told(5_000, "callback", "closed")] })
    expect([...knew.moves].sort()).toEqual([1, 2])
    // so the store, which saw active → dispute → closed, owes no dispute_after_payment
    expect(want({ ...record(moves, { captured: 179_000 }), told: [told(1_500, "callback", "dispute"), told(5_000, "callback", "closed")] }, 179_000).required).toEqual([])
  })
})

describe("the checkout kinds of several pay-ins: a cart changed, pay again", () => {
  it("cart changed: the old session's money (the session deleted, or gone from Medusa's tables) is stray, never captured, even once the cart became an order", () => {
    const old = record([move("pay", "closed")], { flags: ["stray_payment"] })
    old.medusa.session!.deleted = true
    expect(audit([old]).violations).toEqual([])
    expect(want(old).required).toEqual(["stray_payment"])
    const gone = { ...record([move("pay", "closed")], { order: false, flags: [] }), medusa: { session: null, payments: [], order: null } }
    expect(audit([gone]).violations.map((v) => v.invariant)).toEqual(["flags_match"])
  })

  it("soak seed 1 (30 minutes, fifth run): money Medusa captured before it deleted the session, no order: paid_without_order, captured as it arrived", () => {
    const payments = [{ id: "pay_1", amount: 179_000, canceled: false, captures: [179_000] }]
    const cut = { ...record([move("pay", "closed")], { order: false, flags: ["paid_without_order"] }), medusa: { session: null, payments, order: null } }
    expect(want(cut, 179_000).required).toEqual(["paid_without_order"])
    expect(audit([cut]).violations).toEqual([])
    // flagged stray, or captured twice: each a violation
    expect(audit([{ ...cut, ledger: { ...cut.ledger!, flagKinds: ["stray_payment"] } }]).violations.map((v) => v.invariant)).toEqual(["flags_match"])
    const twice = { ...cut, medusa: { ...cut.medusa, payments: [...payments, { ...payments[0], id: "pay_2" }] } }
    expect(audit([twice]).violations.map((v) => v.invariant)).toEqual(["captured_equals_arrived"])
  })

  it("pay again: the new pay-in booked, the old one paid late flagged; or the old one booked first and the new one stray; never both captured", () => {
    const total = 179_000
    const oldPayin = (captured: number, flags: string[]) => ({
      ...record([move("expire", "canceled"), move("dispute", "dispute"), move("close", "closed")], { captured, flags }),
      payinId: "tx_old",
      sessionId: "payses_old",
    })
    const newPayin = (captured: number, flags: string[]) => ({ ...record([move("pay", "closed")], { captured, flags }), payinId: "tx_new", sessionId: "payses_new" })
    const asOrder = (records: PayinRecords[], captured: number) => {
      for (const r of records) r.medusa.order = { ...r.medusa.order!, captured, transactions: captured, paymentStatus: captured >= total ? "captured" : "awaiting" }
      return records
    }
    expect(audit(asOrder([oldPayin(0, ["late_payment"]), newPayin(total, [])], total)).violations).toEqual([])
    expect(audit(asOrder([oldPayin(total, []), newPayin(0, ["stray_payment"])], total)).violations).toEqual([])
    // the new one not booked and not flagged: a violation; both booked: the order's captures above its total
    expect(audit(asOrder([oldPayin(total, []), newPayin(0, [])], total)).violations.map((v) => v.invariant)).toEqual(["captured_equals_arrived"])
    expect(audit(asOrder([oldPayin(total, []), newPayin(total, [])], 2 * total)).violations.map((v) => v.invariant)).toContain("captured_once")
    // seed 83's run: pay again replaced the old session (Medusa deleted it), the old one paid late after the new one was booked
    const replaced = asOrder([oldPayin(0, ["late_payment"]), newPayin(total, [])], total)
    replaced[0].medusa = { ...replaced[0].medusa, session: null, payments: [] }
    expect(audit(replaced).violations).toEqual([])
    expect(want(replaced[0]).required).toEqual([])
    expect(want(replaced[0]).allowed).toEqual(expect.arrayContaining(["late_payment", "stray_payment"]))
    // neither booked, both flagged: the order got nothing of the money that arrived
    expect(audit(asOrder([oldPayin(0, ["late_payment"]), newPayin(0, ["stray_payment"])], 0)).violations.map((v) => v.invariant)).toEqual(["captured_equals_arrived"])
  })
})

describe("classifyServerErrors", () => {
  const fault = (kind: FaultRecord["kind"], startedAt: number, endedAt: number): FaultRecord => ({ lane: "process", kind, atMs: 0, forMs: 0, startedAt, endedAt })
  const error = (at: number, request: string, status = 500, body = "{}"): ServerError => ({ at, request, status, body })
  const faults = [fault("postgres_restart_fast", 10_000, 20_000), { ...fault("service_5xx", 100_000, 130_000), lane: "service" as const }]

  it("Medusa core's 5xx within a PostgreSQL restart and 30 s after it are known, counted by the fault", () => {
    const out = classifyServerErrors([error(15_000, "POST /store/carts/:id/shipping-methods"), error(49_000, "POST /store/carts")], faults)
    expect(out.known).toEqual({ [`postgres_restart_fast ${new Date(10_000).toISOString().slice(11, 19)}`]: 2 })
    expect(out.violations).toEqual([])
  })

  it("a plugin route's 503 during a service fault is allowed; its 500 there, or anything outside a window, is a violation", () => {
    const out = classifyServerErrors(
      [
        error(110_000, "GET /store/payin/banks", 503, `{"code":"payin_unavailable"}`),
        error(111_000, "GET /store/payin/banks", 500),
        error(15_000, "GET /store/payin/status", 500),
        error(60_000, "POST /store/carts/:id/complete", 500),
      ],
      faults
    )
    expect(out.allowed).toBe(1)
    expect(out.violations.map((v) => v.error.at)).toEqual([111_000, 15_000, 60_000])
  })

  it("audit counts one check per store answer and the violations", () => {
    const result = audit([], { serverErrors: [error(60_000, "POST /store/carts/:id/complete")], faults, answered: 40 })
    expect(result.invariants.no_5xx_outside_faults).toEqual({ checks: 40, violations: 1 })
    expect(result.violations[0]).toMatchObject({ invariant: "no_5xx_outside_faults", payinId: "(store API)" })
  })
})

describe("judgePlant", () => {
  const planted = { payinId: "tx_1", ledgerId: "payin_1", orderId: "order_1", paymentId: "pay_1", amount: 1790, at: 0 }
  const v = (invariant: any, payinId = "tx_1") => ({ invariant, payinId, orderId: null, detail: "" })

  it("passes when exactly the planted pay-in's double capture is reported", () => {
    expect(judgePlant("double_capture", planted, [v("captured_equals_arrived"), v("captured_once")])).toEqual([])
    expect(judgePlant("double_capture", planted, [v("captured_equals_arrived"), v("captured_once"), v("order_records_agree")])).toEqual([])
  })

  it("fails when the auditor missed it, reported something else, or the plant never ran", () => {
    expect(judgePlant("double_capture", planted, [v("captured_once")])).toHaveLength(1)
    expect(judgePlant("double_capture", planted, [v("captured_equals_arrived"), v("captured_once"), v("flags_match")])).toHaveLength(1)
    expect(judgePlant("double_capture", planted, [v("captured_equals_arrived"), v("captured_once"), v("captured_once", "tx_2")])).toHaveLength(1)
    expect(judgePlant("double_capture", null, [])).toHaveLength(1)
  })
})

describe("schedules", () => {
  it("merchants: each kind once first, in the load's time, the same for one seed", () => {
    const plan = planMerchant(new Prng(1).fork("merchant").fork("plan"), 3 * 60_000)
    expect(plan.slice(0, 4).map((a) => a.kind).sort()).toEqual([...MERCHANT_ACTIONS].sort())
    expect(plan.every((a) => a.atMs >= 15_000 && a.atMs < 3 * 60_000 - 20_000)).toBe(true)
    expect(planMerchant(new Prng(1).fork("merchant").fork("plan"), 3 * 60_000)).toEqual(plan)
  })

  it("faults: the service slow stays within the 3 s deadline, the broken URL says how it fails", () => {
    const plan = planFaults(new Prng(7), 120 * 60_000)
    const slow = plan.filter((f) => f.kind === "service_slow")
    const broken = plan.filter((f) => f.kind === "webhook_url_broken")
    expect(slow.length && broken.length && plan.some((f) => f.kind === "webhooks_dropped")).toBeTruthy()
    expect(slow.every((f) => f.delayMs! >= 500 && f.delayMs! <= 2_000)).toBe(true)
    expect(broken.every((f) => f.broken === "502" || f.broken === "close")).toBe(true)
  })
})
