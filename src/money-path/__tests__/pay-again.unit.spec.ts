import { readFileSync } from "fs"
import path from "path"
import { decideEnd, graceEnd, isPayable, payAgainRefusal, type PayAgainRow } from "../pay-again"

const NOW = Date.parse("2026-11-27T12:00:00Z")
const HOUR = 3_600_000
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString()
const row = (over: Partial<PayAgainRow> = {}): PayAgainRow => ({
  id: "p1",
  status: "canceled",
  provider_id: "pp_payin_default",
  status_changed_at: at(-60_000),
  expires_at: at(-60_000),
  ...over,
})
const ON = { enabled: true, graceHours: 24 }

describe("pay again", () => {
  it("a pay-in is payable while open, unpaid, not ended by the store and its window not passed", () => {
    expect(isPayable(row({ status: "active", expires_at: at(HOUR) }), NOW)).toBe(true)
    expect(isPayable(row({ status: "creating", expires_at: null }), NOW)).toBe(true)
    expect(isPayable(row({ status: "active", expires_at: at(-1) }), NOW)).toBe(false)
    expect(isPayable(row({ status: "active", expires_at: at(HOUR), store_canceled_at: at(-1) }), NOW)).toBe(false)
    expect(isPayable(row({ status: "active", expires_at: at(HOUR), session_deleted_at: at(-1) }), NOW)).toBe(false)
    expect(isPayable(row({ status: "active", expires_at: at(HOUR), paid_at: at(-1) }), NOW)).toBe(false)
    expect(isPayable(row({ status: "closed", expires_at: at(HOUR) }), NOW)).toBe(false)
    expect(isPayable(row({ status: "canceled", expires_at: at(HOUR) }), NOW)).toBe(false)
  })

  it("the grace period runs from the first ended pay-in: a recorded end wins over a new one", () => {
    expect(graceEnd([row()], 24, NOW).toISOString()).toBe(at(24 * HOUR))
    const recorded = row({ id: "p0", pay_again_until: at(2 * HOUR) })
    expect(graceEnd([row(), recorded, row({ id: "p2", pay_again_until: at(5 * HOUR) })], 24, NOW).toISOString()).toBe(at(2 * HOUR))
  })

  it("decides the end of an unpaid pay-in: wait in the grace period, defer to a payable one, cancel after", () => {
    const ended = row()
    // off: cancel at once, as before pay again
    expect(decideEnd(ended, [ended], { enabled: false, graceHours: 24 }, NOW)).toEqual({ kind: "cancel" })
    expect(decideEnd(ended, [ended], null, NOW)).toEqual({ kind: "cancel" })
    // on: the order waits for 24 h from when the pay-in ended
    expect(decideEnd(ended, [ended], ON, NOW)).toEqual({ kind: "wait", until: new Date(NOW - 60_000 + 24 * HOUR) })
    // the grace period recorded on an earlier pay-in of the order
    const first = row({ id: "p0", pay_again_until: at(-1) })
    expect(decideEnd(ended, [first, ended], ON, NOW)).toEqual({ kind: "cancel" })
    // another pay-in of the order is payable: it decides, whatever the grace period
    const open = row({ id: "p2", status: "active", expires_at: at(HOUR) })
    expect(decideEnd(ended, [first, ended, open], ON, NOW)).toMatchObject({ kind: "other", payinId: "p2" })
    expect(decideEnd(ended, [ended, open], null, NOW)).toMatchObject({ kind: "other", payinId: "p2", until: null })
  })

  it("refuses new details with the reason a shopper can act on", () => {
    const base = { options: ON, orderCanceled: false, orderPaid: false, now: NOW }
    expect(payAgainRefusal({ ...base, orderRows: [] })).toEqual({ refusal: "payin_not_this_provider", until: null })
    expect(payAgainRefusal({ ...base, orderRows: [row()], orderCanceled: true }).refusal).toBe("payin_order_canceled")
    expect(payAgainRefusal({ ...base, orderRows: [row()], orderPaid: true }).refusal).toBe("payin_order_paid")
    expect(payAgainRefusal({ ...base, orderRows: [row({ paid_at: at(-1) })] }).refusal).toBe("payin_order_paid")
    expect(payAgainRefusal({ ...base, orderRows: [row()], options: { enabled: false, graceHours: 24 } }).refusal).toBe("payin_pay_again_off")
    expect(payAgainRefusal({ ...base, orderRows: [row({ pay_again_until: at(-1) })] })).toEqual({ refusal: "payin_grace_over", until: new Date(NOW - 1) })
    // allowed: until the grace period's end
    expect(payAgainRefusal({ ...base, orderRows: [row({ pay_again_until: at(HOUR) })] })).toEqual({ refusal: null, until: new Date(NOW + HOUR) })
    // a payable pay-in: nothing new to give, no refusal either (the route answers the payable one)
    expect(payAgainRefusal({ ...base, orderRows: [row({ status: "active", expires_at: at(HOUR) }), row({ id: "p0" })] })).toEqual({
      refusal: null,
      until: null,
    })
  })
})

describe("which refusal wins", () => {
  it("checks in the order src/api/README.md documents", () => {
    const readme = readFileSync(path.join(__dirname, "../../api/README.md"), "utf8")
    const list = readme.split("**Which refusal wins.**")[1].split("\n\n")[1]
    const documented = [...list.matchAll(/^\d+\. (?:`(payin_\w+)`|a pay-in of the order can still be paid)/gm)].map((m) => m[1] ?? "payable")
    expect(documented).toHaveLength(6)
    // every condition holds at first; each step removes the one that answered
    const state = { noPayin: true, canceled: true, paid: true, off: true, payable: true }
    const answers: string[] = []
    for (let i = 0; i < documented.length; i++) {
      const ended = row({ expires_at: at(-HOUR), status_changed_at: at(-30 * HOUR) })
      const rows = state.noPayin
        ? []
        : [state.payable ? row({ status: "active", expires_at: at(HOUR) }) : ended, ...(state.paid ? [row({ id: "p0", paid_at: at(-1) })] : [])]
      const { refusal } = payAgainRefusal({ orderRows: rows, options: state.off ? { enabled: false, graceHours: 24 } : ON, orderCanceled: state.canceled, orderPaid: state.paid, now: NOW })
      answers.push(refusal ?? "payable")
      if (refusal === "payin_not_this_provider") state.noPayin = false
      else if (refusal === "payin_order_canceled") state.canceled = false
      else if (refusal === "payin_order_paid") state.paid = false
      else if (refusal === "payin_pay_again_off") state.off = false
      else if (refusal === null) state.payable = false
    }
    expect(answers).toEqual(documented)
  })
})
