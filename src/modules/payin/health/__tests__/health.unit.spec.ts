import { alertDescription, alertNotifications, alertTitle } from "../alerts"
import { MinuteCounters } from "../../counters/counters"
import type { CreateNotificationDTO, INotificationModuleService } from "@medusajs/framework/types"
import type { HealthAlert } from "../health"
import { notificationSender } from "../monitor"
import { PENDING_SEND_LOST_MS } from "../../../../medusa/notification-module"
import { NO_FEED_PROVIDER } from "../../../../medusa/notification-module"
import { ALERTABLE_SIGNALS, SIGNAL_IDS, WARNING_ONLY_SIGNALS, worstOf } from "../../signal-ids"
import { type ProviderFigures, type Signal, type Thresholds, isLocalHost, jobSignal, providerSignals } from "../signals"
import { type StateRow, nextState } from "../state"
import { parsePluginOptions } from "../../settings/parse"

const T0 = new Date("2026-11-28T10:00:00Z")
const at = (minutes: number) => new Date(+T0 + minutes * 60_000)
const policy = { alerts: true, minIntervalMs: 60 * 60_000 }

describe("nextState: one alert per incident", () => {
  it("a signal turning failing opens an incident and alerts once; staying failing does not alert again", () => {
    const first = nextState({ state: "ok", since: T0, incident_at: null, alerted_at: null, last_alert_at: null }, "failing", at(1), policy)
    expect(first.alert).toEqual({ kind: "failing", incidentAt: at(1) })
    expect(first.row).toMatchObject({ state: "failing", since: at(1), incident_at: at(1), alerted_at: at(1), last_alert_at: at(1) })
    const again = nextState(first.row, "failing", at(2), policy)
    expect(again.alert).toBeNull()
    expect(again.row.since).toEqual(at(1))
  })

  it("leaving failing ends the incident with one recovery alert; warning counts as leaving", () => {
    const failing: StateRow = { state: "failing", since: at(1), incident_at: at(1), alerted_at: at(1), last_alert_at: at(1) }
    const back = nextState(failing, "warning", at(5), policy)
    expect(back.alert).toEqual({ kind: "recovered", incidentAt: at(1) })
    expect(back.row).toMatchObject({ state: "warning", since: at(5), incident_at: null, alerted_at: null, last_alert_at: at(1) })
    expect(nextState(back.row, "ok", at(6), policy).alert).toBeNull()
  })

  it("within the minimum interval a new incident goes unalerted, and so does its recovery", () => {
    const recovered: StateRow = { state: "ok", since: at(5), incident_at: null, alerted_at: null, last_alert_at: at(1) }
    const flap = nextState(recovered, "failing", at(10), policy)
    expect(flap.alert).toBeNull()
    expect(flap.row).toMatchObject({ incident_at: at(10), alerted_at: null })
    expect(nextState(flap.row, "ok", at(11), policy).alert).toBeNull()
  })

  it("an incident still failing when the interval has passed gets its alert then", () => {
    const quiet: StateRow = { state: "failing", since: at(10), incident_at: at(10), alerted_at: null, last_alert_at: at(1) }
    expect(nextState(quiet, "failing", at(30), policy).alert).toBeNull()
    expect(nextState(quiet, "failing", at(61), policy).alert).toEqual({ kind: "failing", incidentAt: at(10) })
  })

  it("a signal that does not alert records its incident without an alert", () => {
    const r = nextState(null, "failing", T0, { alerts: false, minIntervalMs: 0 })
    expect(r.alert).toBeNull()
    expect(r.row).toMatchObject({ state: "failing", incident_at: T0, alerted_at: null })
    expect(nextState(r.row, "ok", at(1), { alerts: false, minIntervalMs: 0 }).alert).toBeNull()
  })
})

// the defaults a new store keeps (2, 5, 25 %, 50 %, 15 min, 365 days)
const thresholds: Thresholds = parsePluginOptions(undefined)

function figures(over: Partial<ProviderFigures> = {}): ProviderFigures {
  return {
    providerId: "pp_payin_default",
    instanceId: "default",
    lastAppliedAt: T0,
    missed: 0,
    webhookRefusals: [],
    backlog: { count: 0, oldest_at: null },
    calls: [],
    effects: { waiting: 0, failed: 0, orders: [] },
    uncaptured: { count: 0, oldest_paid_at: null, orders: [] },
    stray: 0,
    config: { baseUrl: "https://pay.example.com", production: true, webhookUrl: "https://shop.example.com/hooks/payin/default", encryptionConfigured: true, keySavedAt: null },
    ...over,
  }
}
const state = (list: Signal[], id: string) => list.find((s) => s.id === id)!
const call = (operation: string, outcome: string, count: number, minute: number, detail: string | null = null) => ({
  operation,
  outcome,
  count,
  total_ms: count * 100,
  max_ms: 300,
  last_at: at(minute),
  detail,
})

describe("providerSignals: figures to states", () => {
  it("a healthy instance is ok everywhere", () => {
    const list = providerSignals(figures({ calls: [call("create_payin", "ok", 10, 1)] }), thresholds, at(2))
    expect(list.filter((s) => s.state !== "ok").map((s) => s.id)).toEqual([])
    expect(list.map((s) => s.id).sort()).toEqual(SIGNAL_IDS.filter((id) => id !== "jobs_overdue").sort())
  })

  it("webhooks_missing: warning from one pay-in changed by reconciliation, failing at the threshold", () => {
    expect(state(providerSignals(figures({ missed: 1 }), thresholds, T0), "webhooks_missing").state).toBe("warning")
    const failing = state(providerSignals(figures({ missed: 2 }), thresholds, T0), "webhooks_missing")
    expect(failing.state).toBe("failing")
    expect(failing.summary).toContain("2 pay-ins")
    expect(failing.action).toContain("https://shop.example.com/hooks/payin/default")
  })

  it("webhooks_backlog fails while a stored webhook waits past the threshold, saying how long", () => {
    const waiting = state(providerSignals(figures({ backlog: { count: 3, oldest_at: T0 } }), thresholds, at(10)), "webhooks_backlog")
    expect(waiting).toMatchObject({ state: "failing", figure: { count: 3, oldest_at: T0.toISOString(), waiting_seconds: 600, threshold_seconds: 120 } })
    expect(waiting.summary).toContain("3 webhooks")
    expect(waiting.action).toContain("MEDUSA_WORKER_MODE")
    expect(state(providerSignals(figures(), thresholds, at(10)), "webhooks_backlog").state).toBe("ok")
  })

  it("webhook_rejections counts signature failures apart, failing at the threshold", () => {
    const refusals = [
      { reason: "signature_mismatch", count: 4, last_at: at(1) },
      { reason: "invalid_body", count: 1, last_at: at(2) },
    ]
    const s = state(providerSignals(figures({ webhookRefusals: refusals }), thresholds, at(3)), "webhook_rejections")
    expect(s).toMatchObject({ state: "failing", figure: { signature_failures: 4, rejected: 5, last_reason: "invalid_body" } })
    expect(state(providerSignals(figures({ webhookRefusals: refusals.slice(1) }), thresholds, at(3)), "webhook_rejections").state).toBe("warning")
  })

  it("service_ip fails while the service's latest answer is the refusal, names the address, and ends with an accepted call", () => {
    const refused = [call("create_payin", "ok", 3, 1), call("create_payin", "ip_not_whitelisted", 2, 5, "203.0.113.7")]
    const s = state(providerSignals(figures({ calls: refused }), thresholds, at(6)), "service_ip")
    expect(s).toMatchObject({ state: "failing", figure: { refused: 2, address: "203.0.113.7" } })
    expect(s.action).toContain("Add 203.0.113.7 to the IP whitelist")
    const accepted = [...refused, call("look_up", "ok", 1, 7)]
    expect(state(providerSignals(figures({ calls: accepted }), thresholds, at(8)), "service_ip").state).toBe("warning")
  })

  it("service_key fails on a 401 that no accepted call followed; an error of another kind does not end it", () => {
    const calls = [call("create_payin", "key_refused", 1, 5), call("look_up", "timeout", 1, 6)]
    expect(state(providerSignals(figures({ calls }), thresholds, at(7)), "service_key").state).toBe("failing")
  })

  it("service_errors fails at the share of errors with at least 3 of them", () => {
    const two = [call("look_up", "ok", 2, 1), call("look_up", "timeout", 2, 2)]
    expect(state(providerSignals(figures({ calls: two }), thresholds, at(3)), "service_errors").state).toBe("warning")
    const many = [call("look_up", "ok", 6, 1), call("look_up", "timeout", 2, 2), call("create_payin", "server_error", 1, 2)]
    const s = state(providerSignals(figures({ calls: many }), thresholds, at(3)), "service_errors")
    expect(s).toMatchObject({ state: "failing", figure: { calls: 9, errors: 3, error_percent: 33.3 } })
    expect((s.figure.by_kind as Record<string, { count: number }>).timeout.count).toBe(2)
    const diluted = [call("look_up", "ok", 100, 1), call("look_up", "timeout", 3, 2)]
    expect(state(providerSignals(figures({ calls: diluted }), thresholds, at(3)), "service_errors").state).toBe("warning")
  })

  it("requisites_unavailable is the share of pay-in creations", () => {
    const calls = [call("create_payin", "ok", 2, 1), call("create_payin", "requisites_unavailable", 3, 2), call("look_up", "ok", 50, 2)]
    const s = state(providerSignals(figures({ calls }), thresholds, at(3)), "requisites_unavailable")
    expect(s).toMatchObject({ state: "failing", figure: { checkouts: 5, unavailable: 3, percent: 60 } })
  })

  it("effects_failing warns while retried and fails once flagged, naming the orders", () => {
    expect(state(providerSignals(figures({ effects: { waiting: 1, failed: 0, orders: ["order_1"] } }), thresholds, T0), "effects_failing").state).toBe("warning")
    const s = state(providerSignals(figures({ effects: { waiting: 0, failed: 2, orders: ["order_1", "order_2"] } }), thresholds, T0), "effects_failing")
    expect(s.state).toBe("failing")
    expect(s.summary).toContain("order_1, order_2")
  })

  it("paid_not_captured fails from one pay-in; stray_payments only ever warns", () => {
    const s = providerSignals(figures({ uncaptured: { count: 1, oldest_paid_at: T0, orders: ["order_9"] }, stray: 4 }), thresholds, at(20))
    expect(state(s, "paid_not_captured").state).toBe("failing")
    expect(state(s, "stray_payments").state).toBe("warning")
  })

  it("configuration: a local base URL fails only in production; a local webhook URL warns only in production; an old saved key warns", () => {
    const local = (production: boolean) =>
      providerSignals(figures({ config: { baseUrl: "http://127.0.0.1:4010", production, webhookUrl: "http://localhost:9000/hooks/payin/default", encryptionConfigured: false, keySavedAt: new Date(+T0 - 400 * 86_400_000) } }), thresholds, T0)
    expect(state(local(true), "sandbox_in_production").state).toBe("failing")
    expect(state(local(false), "sandbox_in_production").state).toBe("ok")
    expect(state(local(true), "webhook_url").state).toBe("warning")
    expect(state(local(false), "webhook_url").state).toBe("ok")
    expect(state(local(false), "encryption_key").state).toBe("warning")
    expect(state(local(false), "api_key_age")).toMatchObject({ state: "warning", figure: { age_days: 400 } })
    expect(state(providerSignals(figures(), { ...thresholds, apiKeyMaxAgeDays: 0 }, T0), "api_key_age").state).toBe("ok")
  })

  it("isLocalHost: loopback, private and dotless names; not public names or addresses", () => {
    for (const h of ["localhost", "127.0.0.1", "10.1.2.3", "192.168.0.5", "172.20.0.1", "::1", "fd12:3456::1", "medusa"]) expect(isLocalHost(h)).toBe(true)
    for (const h of ["shop.example.com", "8.8.8.8", "172.32.0.1", "2001:db8::1"]) expect(isLocalHost(h)).toBe(false)
  })
})

describe("jobSignal", () => {
  it("fails when a job is overdue, names it; a job not due yet is ok", () => {
    const overdue = jobSignal([{ name: "payin-reconcile", last_run_at: T0, interval_seconds: 300, overdue: true }])
    expect(overdue.state).toBe("failing")
    expect(overdue.summary).toContain("payin-reconcile")
    expect(jobSignal([{ name: "payin-retention", last_run_at: null, interval_seconds: 600, overdue: false }]).state).toBe("ok")
  })

  it("warns, never fails, while the plugin's own timer runs a job Medusa's scheduler stopped calling (Redis lost its schedules): one incident, no flapping", () => {
    const timer = jobSignal([
      { name: "payin-webhook-inbox", last_run_at: T0, interval_seconds: 5, overdue: false, run_by_timer: true },
      { name: "payin-retention", last_run_at: T0, interval_seconds: 600, overdue: false },
    ])
    expect(timer.state).toBe("warning")
    expect(timer.summary).toMatch(/no longer calls payin-webhook-inbox: the plugin's own timer runs them/)
    expect(timer.summary).toMatch(/restart the workers/)
    expect(timer.figure.jobs).toEqual(expect.arrayContaining([expect.objectContaining({ name: "payin-webhook-inbox", run_by_timer: true })]))
    expect(jobSignal([{ name: "payin-webhook-inbox", last_run_at: T0, interval_seconds: 5, overdue: true, run_by_timer: true }]).state).toBe("failing")
  })
})

describe("signal vocabulary", () => {
  it("ALERTABLE_SIGNALS is every signal that can fail", () => {
    expect([...ALERTABLE_SIGNALS].sort()).toEqual(SIGNAL_IDS.filter((id) => !(WARNING_ONLY_SIGNALS as readonly string[]).includes(id)).sort())
    expect(worstOf(["ok", "warning"])).toBe("warning")
    expect(worstOf(["warning", "failing", "ok"])).toBe("failing")
  })
})

describe("alerts", () => {
  const signal = state(providerSignals(figures({ effects: { waiting: 0, failed: 1, orders: ["order_01ABC"] } }), thresholds, T0), "effects_failing")
  const alert: HealthAlert = { kind: "failing", signal, since: at(1), incidentAt: at(1), idempotencyKey: "payin:health:pp_payin_default:effects_failing:1:failing" }

  it("say what is wrong, since when, what is affected and what to do", () => {
    expect(alertTitle(alert)).toBe("Pay-ins: captures or order cancels fail (default)")
    const text = alertDescription(alert, at(2))
    expect(text).toContain(at(1).toISOString())
    expect(text).toContain("order_01ABC")
    expect(text).toContain("What to do:")
  })

  it("go to the feed (every admin) and once to each recipient, each under its own idempotency key", () => {
    const list = alertNotifications(alert, { feed: true, recipients: ["ops@shop.example", "cto@shop.example"], channel: "email" }, at(2))
    expect(list.map((n) => [n.channel, n.to, n.template, n.idempotency_key])).toEqual([
      ["feed", "", "payin.health", alert.idempotencyKey],
      ["email", "ops@shop.example", "payin.health.failing", `${alert.idempotencyKey}:ops@shop.example`],
      ["email", "cto@shop.example", "payin.health.failing", `${alert.idempotencyKey}:cto@shop.example`],
    ])
    expect(list[0].data).toMatchObject({ title: alertTitle(alert), signal: "effects_failing", state: "failing", since: at(1).toISOString() })
    expect(alertNotifications(alert, { feed: false, recipients: [], channel: "email" }, at(2))).toEqual([])
  })

  describe("notificationSender", () => {
    /** A Notification Module with providers for `channels`; `failing` channels throw on send, as Medusa does when a provider fails. */
    const moduleWith = (failing: string[] = []) => {
      const created: CreateNotificationDTO[] = []
      // the module's rows by idempotency key, as Medusa keeps them (it sends again only a failed one)
      const rows = new Map<string, { id: string; status: string; updated_at: Date }>()
      const module = {
        async listNotifications(filter: { idempotency_key: string }) {
          const row = rows.get(filter.idempotency_key)
          return row ? [{ ...row }] : []
        },
        async updateNotifications({ id, status }: { id: string; status: string }) {
          for (const row of rows.values()) if (row.id === id) Object.assign(row, { status, updated_at: new Date() })
        },
        async createNotifications(list: CreateNotificationDTO[]) {
          for (const n of list) {
            const row = rows.get(n.idempotency_key!)
            if (row && row.status !== "failure") continue
            if (failing.includes(n.channel)) {
              rows.set(n.idempotency_key!, { id: row?.id ?? `noti_${rows.size}`, status: "failure", updated_at: new Date() })
              throw new Error(`Failed to send notification: ${n.channel} is down`)
            }
            rows.set(n.idempotency_key!, { id: row?.id ?? `noti_${rows.size}`, status: "success", updated_at: new Date() })
            created.push(n)
          }
          return []
        },
      } as unknown as INotificationModuleService
      return { module, created, rows }
    }
    const options = (o: Partial<{ alertsEnabled: boolean; alertEmailRecipients: string[]; alertEmailChannel: string }> = {}) => async () => ({
      alertsEnabled: true,
      alertEmailRecipients: ["ops@shop.example"],
      alertEmailChannel: "email",
      ...o,
    })
    const sender = (m: ReturnType<typeof moduleWith>, channels: string[], o = options()) =>
      notificationSender({ module: () => m.module, channels: async (_m, wanted) => new Set(wanted.filter((c) => channels.includes(c))) }, o, () => at(2))

    it("without a feed provider: sends the e-mail, creates nothing on the feed, says so once and does not retry", async () => {
      const m = moduleWith()
      const outcome = await sender(m, ["email"])(alert)
      expect(m.created.map((n) => [n.channel, n.to])).toEqual([["email", "ops@shop.example"]])
      expect(outcome).toEqual({ error: NO_FEED_PROVIDER, retry: false })
    })

    it("the e-mails go out whatever the feed does; a failed send is retried", async () => {
      const m = moduleWith(["feed"])
      const outcome = await sender(m, ["feed", "email"])(alert)
      expect(m.created.map((n) => n.channel)).toEqual(["email"])
      expect(outcome.retry).toBe(true)
      expect(outcome.error).toContain("feed: Failed to send notification")
    })

    it("with both providers: one feed notification and one e-mail, no error", async () => {
      const m = moduleWith()
      expect(await sender(m, ["feed", "email"])(alert)).toEqual({ error: null, retry: false })
      expect(m.created.map((n) => n.idempotency_key)).toEqual([alert.idempotencyKey, `${alert.idempotencyKey}:ops@shop.example`])
    })

    it("soak seed 1 (30 minutes): an alert a killed sender left pending is sent again once 30 s old; a younger one is retried later, not sent twice", async () => {
      const m = moduleWith()
      const feedOnly = options({ alertEmailRecipients: [] })
      m.rows.set(alert.idempotencyKey, { id: "noti_left", status: "pending", updated_at: new Date() })
      const young = await sender(m, ["feed"], feedOnly)(alert)
      expect(young.retry).toBe(true)
      expect(young.error).toContain("noti_left is being sent")
      expect(m.created).toEqual([])
      m.rows.get(alert.idempotencyKey)!.updated_at = new Date(Date.now() - PENDING_SEND_LOST_MS - 1_000)
      expect(await sender(m, ["feed"], feedOnly)(alert)).toEqual({ error: null, retry: false })
      expect(m.created.map((n) => n.idempotency_key)).toEqual([alert.idempotencyKey])
      expect(m.rows.get(alert.idempotencyKey)).toMatchObject({ id: "noti_left", status: "success" })
      // sent: never again
      await sender(m, ["feed"], feedOnly)(alert)
      expect(m.created).toHaveLength(1)
    })

    it("alertsEnabled false sends nothing at all, e-mails included", async () => {
      const m = moduleWith()
      expect(await sender(m, ["feed", "email"], options({ alertsEnabled: false }))(alert)).toEqual({ error: null, retry: false })
      expect(m.created).toEqual([])
    })
  })
})

describe("MinuteCounters", () => {
  it("adds calls per minute and kind in memory and writes them in one upsert", async () => {
    const writes: unknown[][] = []
    const db = { raw: async (_sql: string, values?: unknown[]) => (writes.push(values ?? []), { rows: [] }), transaction: async () => undefined as never }
    const counters = new MinuteCounters(() => db)
    const minute = +T0
    counters.add("pp_payin_default", "call:look_up:ok", 10, null, minute + 1_000)
    counters.add("pp_payin_default", "call:look_up:ok", 30, null, minute + 2_000)
    counters.add("pp_payin_default", "call:create_payin:ip_not_whitelisted", 5, "203.0.113.7", minute + 3_000)
    counters.add("pp_payin_default", "call:look_up:ok", 20, null, minute + 61_000)
    await counters.flush()
    expect(writes).toHaveLength(1)
    const rows = []
    for (let i = 0; i < writes[0].length; i += 9) rows.push(writes[0].slice(i + 1, i + 9))
    expect(rows.map((r) => [r[2], r[3], r[4], r[5], r[7]])).toEqual([
      ["call:look_up:ok", 2, 40, 30, null],
      ["call:create_payin:ip_not_whitelisted", 1, 5, 5, "203.0.113.7"],
      ["call:look_up:ok", 1, 20, 20, null],
    ])
    await counters.flush()
    expect(writes).toHaveLength(1)
  })

  it("keeps the counts of a failed write for the next one", async () => {
    let fail = true
    const writes: unknown[][] = []
    const db = {
      raw: async (_sql: string, values?: unknown[]) => {
        if (fail) throw new Error("connection refused")
        writes.push(values ?? [])
        return { rows: [] }
      },
      transaction: async () => undefined as never,
    }
    const errors: unknown[] = []
    const counters = new MinuteCounters(() => db, (e) => errors.push(e))
    counters.add("pp_payin_default", "webhook:signature_mismatch", 0, null, +T0)
    await counters.flush()
    expect(errors).toHaveLength(1)
    fail = false
    counters.add("pp_payin_default", "webhook:signature_mismatch", 0, null, +T0 + 1000)
    await counters.flush()
    expect(writes).toHaveLength(1)
    expect(writes[0][4]).toBe(2)
  })
})
