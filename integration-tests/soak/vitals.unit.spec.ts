// The soak's vitals as pure rules (TEST_TYPE=unit): memory_bounded over RSS samples,
// alerts_match_faults over notification rows, health polls and the fault log, notifications_once
// over Medusa's and the service's records.
import type { PayinRecords } from "./auditor"
import type { FaultRecord } from "./faults"
import type { ActionRecord } from "./merchant"
import type { ServiceMove } from "./shoppers"
import {
  type AlertRow,
  type HealthPoll,
  type RssSeries,
  type ShopperRow,
  SOAK_ALERT_SETTINGS,
  judgeAlerts,
  judgeMemory,
  judgeNotifications,
  parseAlertKey,
} from "./vitals"

const MB = 1024
/** A series sampled every 5 s for `seconds`, its RSS in MB given by `mbAt(second)`. */
const series = (seconds: number, mbAt: (s: number) => number, role = "serverA", pid = 100): RssSeries => ({
  role,
  pid,
  samples: Array.from({ length: Math.floor(seconds / 5) + 1 }, (_, i) => ({ at: 1_000_000 + i * 5_000, kb: Math.round(mbAt(i * 5) * MB) })),
})

describe("memory_bounded", () => {
  const margin = { ratio: 0.35, floorKb: 48 * MB }
  it.each([
    ["flat after the warm-up", (s: number) => (s < 20 ? 200 + s * 10 : 400), 0],
    ["a sawtooth of GC cycles around a level", (s: number) => 400 + (s % 30) * 3, 0],
    ["a climb that levels off in the second quarter", (s: number) => Math.min(450, 300 + s * 2), 0],
    ["growth that goes on to the end (a leak: +2 MB/s)", (s: number) => 300 + 2 * s, 1],
    ["a jump at the end above the margin", (s: number) => (s >= 170 ? 700 : 400), 1],
  ])("%s", (_, mbAt, violations) => {
    const judged = judgeMemory([series(180, mbAt)], margin)
    expect(judged.checks).toBe(1)
    expect(judged.violations).toHaveLength(violations)
    if (violations) expect(judged.violations[0]).toMatchObject({ invariant: "memory_bounded", subject: "serverA (pid 100)" })
  })

  it("a series of 150 s or less (a late restart) is listed, not judged; each pid is its own series", () => {
    const judged = judgeMemory([series(145, (s) => 100 + s * 10, "worker", 7), series(180, () => 400, "worker", 8)], margin)
    expect(judged.checks).toBe(1)
    expect(judged.violations).toEqual([])
    expect(judged.rows.map((r) => [r.pid, r.judged])).toEqual([
      [7, false],
      [8, true],
    ])
  })

  it("soak seed 1 (30 minutes): a server restarted under load, 85 s of warm-up (558 → 610 → 878 MB), is not judged a leak", () => {
    const warmUp = series(85, (s) => (s <= 40 ? 558 + s * 1.3 : 610 + (s - 40) * 6))
    expect(judgeMemory([warmUp], margin)).toMatchObject({ checks: 0, violations: [] })
  })

  it("the end is the median of the last three samples: one sample at a GC peak does not decide", () => {
    const peak = series(180, () => 400)
    peak.samples[peak.samples.length - 1].kb = 900 * MB
    expect(judgeMemory([peak], margin).violations).toEqual([])
  })
})

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0)
const at = (s: number) => T0 + s * 1000
const fault = (kind: FaultRecord["kind"], from: number, to: number): FaultRecord => ({ lane: kind.startsWith("kill") || kind.includes("restart") ? "process" : "service", kind, atMs: 0, forMs: 0, startedAt: at(from), endedAt: at(to) })
const OPS = SOAK_ALERT_SETTINGS.recipients[0]
/** The feed row and the e-mail row of one alert, as the plugin keys them. */
const alert = (signal: string, incident: number, kind: "failing" | "recovered", sentAt: number, scope = signal === "jobs_overdue" ? "plugin" : "pp_payin_default"): AlertRow[] => {
  const key = `payin:health:${scope}:${signal}:${at(incident)}:${kind}`
  return [
    { key, channel: "feed", to: "", status: "success", createdAt: at(sentAt), signal, state: kind },
    { key: `${key}:${OPS}`, channel: "email", to: OPS, status: "success", createdAt: at(sentAt), signal, state: kind },
  ]
}
/** A health poll every 5 s from `from` to `to` (seconds), `failing` the signals failing at each second. */
const polls = (from: number, to: number, failing: (s: number) => string[] = () => []): HealthPoll[] => {
  const out: HealthPoll[] = []
  for (let s = from; s <= to; s += 5) {
    const states: Record<string, string> = { "pp_payin_default:service_errors": "ok", "pp_payin_default:webhooks_backlog": "ok", "plugin:jobs_overdue": "ok", "pp_payin_default:paid_not_captured": "ok" }
    for (const f of failing(s)) states[f] = "failing"
    out.push({ at: at(s), states })
  }
  return out
}
const judge = (input: { alerts?: AlertRow[]; faults?: FaultRecord[]; merchant?: ActionRecord[]; polls?: HealthPoll[]; forwarded?: { at: number; forwarded: number }[] }) =>
  judgeAlerts({ alerts: input.alerts ?? [], faults: input.faults ?? [], merchant: input.merchant ?? [], polls: input.polls ?? polls(0, 300), forwarded: input.forwarded ?? [], settings: SOAK_ALERT_SETTINGS })

describe("alerts_match_faults", () => {
  it("parses the idempotency keys the health README names", () => {
    expect(parseAlertKey(`payin:health:pp_payin_default:service_errors:${at(5)}:failing:${OPS}`)).toEqual({ scope: "pp_payin_default", signal: "service_errors", incidentAt: at(5), kind: "failing", recipient: OPS })
    expect(parseAlertKey(`payin:health:plugin:jobs_overdue:${at(5)}:recovered`)).toMatchObject({ scope: "plugin", kind: "recovered", recipient: null })
    expect(parseAlertKey("payin:paid:order_1")).toBeNull()
  })

  it("a 5xx fault: one alert and one recovery, each on the feed and by e-mail, explained by the fault", () => {
    const failing = (s: number) => (s >= 40 && s < 120 ? ["pp_payin_default:service_errors"] : [])
    const judged = judge({ faults: [fault("service_5xx", 30, 60)], alerts: [...alert("service_errors", 40, "failing", 41), ...alert("service_errors", 40, "recovered", 121)], polls: polls(0, 300, failing) })
    expect(judged.violations).toEqual([])
    expect(judged.incidents).toHaveLength(1)
    expect(judged.incidents[0].causes[0]).toMatch(/^service_5xx /)
  })

  it("an alert sent twice (the feed row twice), or no e-mail to the recipient, is a violation", () => {
    const twice = judge({ faults: [fault("service_5xx", 30, 60)], alerts: [...alert("service_errors", 40, "failing", 41), { ...alert("service_errors", 40, "failing", 45)[0], key: `payin:health:pp_payin_default:service_errors:${at(40)}:failing` }] })
    expect(twice.violations.map((v) => v.detail)).toEqual([expect.stringContaining("alert: 2 on the feed")])
    const noMail = judge({ faults: [fault("service_5xx", 30, 60)], alerts: [alert("service_errors", 40, "failing", 41)[0]] })
    expect(noMail.violations.map((v) => v.detail)).toEqual([expect.stringContaining("alert: 1 on the feed, e-mails {}")])
  })

  it("an incident with no fault before it, or of a signal no fault covers, is a violation", () => {
    const none = judge({ faults: [fault("service_5xx", 100, 130)], alerts: alert("service_errors", 40, "failing", 41), polls: polls(0, 300, (s) => (s >= 40 ? ["pp_payin_default:service_errors"] : [])) })
    expect(none.violations.map((v) => v.detail)).toEqual([expect.stringContaining("no fault it covers")])
    const uncovered = judge({ faults: [fault("kill_worker", 30, 60)], alerts: alert("paid_not_captured", 70, "failing", 71), polls: polls(0, 300, (s) => (s >= 70 ? ["pp_payin_default:paid_not_captured"] : [])) })
    expect(uncovered.violations.map((v) => v.detail)).toEqual([expect.stringContaining("no fault of the soak covers this signal")])
  })

  it("a worker down too short for the jobs' window must raise nothing", () => {
    const judged = judge({ faults: [fault("kill_worker", 30, 38)], alerts: alert("jobs_overdue", 50, "failing", 51), polls: polls(0, 300, (s) => (s >= 50 ? ["plugin:jobs_overdue"] : [])) })
    expect(judged.violations.map((v) => v.detail)).toEqual([expect.stringContaining("raised by faults too short for its threshold: kill_worker")])
  })

  it("a worker down 60 s must raise jobs_overdue, and webhooks_backlog when webhooks reached a server meanwhile", () => {
    const forwarded = [0, 5, 10, 15, 20, 25].map((s, i) => ({ at: at(30 + s), forwarded: 100 + i * 3 }))
    const quiet = judge({ faults: [fault("kill_worker", 30, 90)], forwarded })
    expect(quiet.violations.map((v) => v.subject).sort()).toEqual(["jobs_overdue", "webhooks_backlog"])
    const alerted = judge({
      faults: [fault("kill_worker", 30, 90)],
      forwarded,
      alerts: [...alert("jobs_overdue", 60, "failing", 61), ...alert("jobs_overdue", 60, "recovered", 100), ...alert("webhooks_backlog", 65, "failing", 66), ...alert("webhooks_backlog", 65, "recovered", 105)],
      polls: polls(0, 300, (s) => [...(s >= 60 && s < 100 ? ["plugin:jobs_overdue"] : []), ...(s >= 65 && s < 105 ? ["pp_payin_default:webhooks_backlog"] : [])]),
    })
    expect(alerted.violations).toEqual([])
  })

  it("jobs_overdue already failing (Redis started empty before the kill) answers for the worker down too", () => {
    const judged = judge({
      faults: [fault("redis_restart", 10, 15), fault("kill_worker", 30, 75)],
      alerts: [...alert("jobs_overdue", 35, "failing", 36), ...alert("jobs_overdue", 35, "recovered", 85)],
      polls: polls(0, 300, (s) => (s >= 35 && s < 85 ? ["plugin:jobs_overdue"] : [])),
    })
    expect(judged.violations).toEqual([])
    expect(judged.incidents[0].causes).toEqual([expect.stringMatching(/^redis_restart/), expect.stringMatching(/^kill_worker/)])
  })

  it("a failing stretch the polls saw for two checks without an alert, and a recovery due but missing, are violations", () => {
    const unalerted = judge({ faults: [fault("service_5xx", 30, 60)], polls: polls(0, 300, (s) => (s >= 40 && s < 70 ? ["pp_payin_default:service_errors"] : [])) })
    expect(unalerted.violations.map((v) => v.detail)).toEqual([expect.stringMatching(/failing in every health poll from 09:00:40 to 09:01:05, no alert/)])
    const unrecovered = judge({ faults: [fault("service_5xx", 30, 60)], alerts: alert("service_errors", 40, "failing", 41), polls: polls(0, 300, (s) => (s >= 40 && s < 70 ? ["pp_payin_default:service_errors"] : [])) })
    expect(unrecovered.violations.map((v) => v.detail)).toEqual([expect.stringContaining("no recovery")])
    // still failing at the end: no recovery owed
    const open = judge({ faults: [fault("service_5xx", 30, 60)], alerts: alert("service_errors", 40, "failing", 41), polls: polls(0, 300, (s) => (s >= 40 ? ["pp_payin_default:service_errors"] : [])) })
    expect(open.violations).toEqual([])
  })

  it("the key rotated by a merchant explains service_key and webhook_rejections", () => {
    const merchant: ActionRecord[] = [{ kind: "key_rotated", atMs: 0, startedAt: at(50), endedAt: at(52), answer: "200" }]
    const judged = judge({ merchant, alerts: [...alert("service_key", 51, "failing", 52), ...alert("service_key", 51, "recovered", 58), ...alert("webhook_rejections", 55, "failing", 56)] })
    expect(judged.violations).toEqual([])
  })
})

const move = (action: string, status: string, fiatAmount = "1790.00"): ServiceMove => ({ action, at: 0, http: 200, status, fiatAmount, fiatCurrency: "RUB" })
function order(id: string, payins: { status: string; moves: ServiceMove[] }[], captured: number, total = 179_000): PayinRecords[] {
  return payins.map((p, i) => ({
    payinId: `tx_${id}_${i}`,
    sessionId: `payses_${id}_${i}`,
    service: { status: p.status, fiatAmount: "1790.00", fiatCurrency: "RUB" },
    moves: p.moves,
    window: null,
    medusa: {
      session: { amount: total, currency: "rub", collectionId: `pay_col_${id}`, deleted: false },
      payments: [],
      order: { id, status: "pending", total, paymentStatus: "awaiting", captured, transactions: captured },
    },
    ledger: null,
  }))
}
const note = (orderId: string, kind: string, status = "success"): ShopperRow => ({ orderId, kind, key: `payin:${kind}:${orderId}`, channel: "email", status })

describe("notifications_once", () => {
  const paid = order("order_paid", [{ status: "closed", moves: [move("pay", "closed")] }], 179_000)
  const under = order("order_under", [{ status: "closed", moves: [move("pay", "closed", "1000.00")] }], 100_000)
  const expired = order("order_expired", [{ status: "canceled", moves: [move("expire", "canceled")] }], 0)
  const late = order("order_late", [{ status: "closed", moves: [move("expire", "canceled"), move("pay", "closed")] }], 179_000)
  const records = [...paid, ...under, ...expired, ...late]

  it("each promised notification once, none where none is owed: no violation", () => {
    const rows = [note("order_paid", "instructions"), note("order_paid", "paid"), note("order_expired", "instructions"), note("order_expired", "expired"), note("order_late", "expired"), note("order_late", "paid")]
    const judged = judgeNotifications(records, rows)
    expect(judged.violations).toEqual([])
    expect(judged.checks).toBe(4 * 3)
    expect(judged.orders.find((o) => o.orderId === "order_under")!.expected).toEqual({ instructions: "0..1", paid: "0", expired: "0" })
  })

  it("soak seed 1 (30 minutes, third run): instructions its killed sender left, marked failure once no longer owed, count as none sent", () => {
    const rows = [note("order_paid", "instructions", "failure"), note("order_paid", "paid"), note("order_expired", "expired"), note("order_late", "paid")]
    const judged = judgeNotifications(records, rows)
    expect(judged.violations).toEqual([])
    expect(judged.orders.find((o) => o.orderId === "order_paid")!.got).toEqual({ instructions: 0, paid: 1, expired: 0 })
  })

  it.each([
    ["a paid order without its paid notification", [note("order_expired", "expired"), note("order_late", "paid")], "order order_paid", "0 paid notifications, expected 1"],
    ["a paid notification twice (two rows)", [note("order_paid", "paid"), note("order_paid", "paid"), note("order_expired", "expired"), note("order_late", "paid")], "order order_paid", "2 paid notifications"],
    ["an underpaid order told it was paid", [note("order_paid", "paid"), note("order_under", "paid"), note("order_expired", "expired"), note("order_late", "paid")], "order order_under", "1 paid notification, expected 0"],
    ["an expired order without its expired notification", [note("order_paid", "paid"), note("order_late", "paid")], "order order_expired", "0 expired notifications, expected 1"],
    ["a paid order told it expired", [note("order_paid", "paid"), note("order_paid", "expired"), note("order_expired", "expired"), note("order_late", "paid")], "order order_paid", "1 expired notification, expected 0"],
    ["a notification for an order the soak never placed", [note("order_paid", "paid"), note("order_expired", "expired"), note("order_late", "paid"), note("order_other", "paid")], "order order_other", "an order the soak did not place"],
    ["a notification that failed", [note("order_paid", "paid", "failure"), note("order_expired", "expired"), note("order_late", "paid")], "order order_paid", "status failure"],
    ["a notification left pending", [note("order_paid", "instructions", "pending"), note("order_paid", "paid"), note("order_expired", "expired"), note("order_late", "paid")], "order order_paid", "instructions notification has status pending"],
  ])("%s is a violation", (_, rows, subject, detail) => {
    const judged = judgeNotifications(records, rows)
    expect(judged.violations).toEqual([expect.objectContaining({ invariant: "notifications_once", subject, detail: expect.stringContaining(detail) })])
  })
})
