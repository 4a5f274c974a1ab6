import i18next from "i18next"
import { ALERTABLE_SIGNALS, SIGNAL_GROUPS } from "../../../modules/payin/signal-ids"
import { jobSignal, providerSignals } from "../../../modules/payin/health/signals"
import { formatDate } from "../../components/common"
import en from "../../i18n/json/en.json"
import ru from "../../i18n/json/ru.json"
import type { HealthSignal } from "../health-api"
import { SIGNAL_IDS, SIGNAL_TEXT_KEYS, alertsKey, groupProblems, hasManyInstances, instanceOf, linkLabelKey, signalTestId, signalText } from "../health-text"

// The signals of the health contract (issue 34; webhooks_backlog issue 40), by group: the admin must speak of each.
const CONTRACT: Record<string, string[]> = {
  webhooks: ["webhooks_missing", "webhook_rejections", "webhooks_backlog"],
  service: ["service_key", "service_ip", "service_errors", "requisites_unavailable"],
  money: ["effects_failing", "paid_not_captured", "stray_payments"],
  worker: ["jobs_overdue"],
  configuration: ["sandbox_in_production", "webhook_url", "encryption_key", "api_key_age"],
}

const AT = "2026-11-28T09:15:00.000Z"
/** A figure of each signal as the health route answers it (the contract's keys). */
const FIGURES: Record<string, Record<string, unknown>> = {
  webhooks_missing: { missed: 3, last_applied_at: AT, window_minutes: 60 },
  webhook_rejections: { signature_failures: 7, rejected: 2, last_reason: "signature_mismatch", window_minutes: 60 },
  webhooks_backlog: { count: 3, oldest_at: AT, waiting_seconds: 600, threshold_seconds: 120 },
  service_key: { refused: 4, last_at: AT },
  service_ip: { refused: 2, last_at: AT, address: "203.0.113.7" },
  service_errors: { calls: 40, errors: 12, error_percent: 30, mean_ms: 812, max_ms: 15003, by_kind: { ok: { count: 28, mean_ms: 120, max_ms: 400 }, timeout: { count: 9, mean_ms: 15000, max_ms: 15003 }, server_error: { count: 3, mean_ms: 40, max_ms: 90 } } },
  requisites_unavailable: { checkouts: 10, unavailable: 6, percent: 60 },
  effects_failing: { waiting: 2, failed: 1, orders: ["order_01A", "order_01B"] },
  paid_not_captured: { count: 1, oldest_paid_at: AT, orders: ["order_01C"] },
  stray_payments: { count: 5, days: 30 },
  jobs_overdue: { jobs: [{ name: "payin-reconcile", last_run_at: AT, interval_seconds: 60, overdue: true }, { name: "payin-prune", last_run_at: AT, interval_seconds: 600, overdue: false }] },
  sandbox_in_production: { base_url_host: "127.0.0.1:4010", production: true },
  webhook_url: { url: "http://localhost:9000/hooks/payin/default", https: false, public: false },
  encryption_key: { configured: false },
  api_key_age: { saved_at: AT, age_days: 400, max_days: 365 },
}

const signal = (id: string, extra: Partial<HealthSignal> = {}): HealthSignal => ({
  id,
  group: Object.entries(CONTRACT).find(([, ids]) => ids.includes(id))?.[0] ?? "other",
  provider_id: id === "jobs_overdue" ? null : "pp_payin_default",
  state: "failing",
  since: AT,
  figure: FIGURES[id] ?? {},
  summary: `English summary of ${id}`,
  action: `English action of ${id}`,
  link: null,
  alerts: true,
  alerted_at: null,
  alert_error: null,
  ...extra,
})

const i18n = i18next.createInstance()
void i18n.init({ resources: { en: { translation: en }, ru: { translation: ru } }, lng: "en", interpolation: { escapeValue: false }, initImmediate: false })
const T = { en: i18n.getFixedT("en"), ru: i18n.getFixedT("ru") }
const text = (language: "en" | "ru", s: HealthSignal) => signalText(T[language] as never, s, language, formatDate)

const at = (tree: unknown, key: string): unknown => key.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), tree)

describe("the Health section's texts", () => {
  it("knows exactly the contract's signals, in its groups; the alert choices are the alertable ones", () => {
    expect(SIGNAL_GROUPS).toEqual(CONTRACT)
    expect([...SIGNAL_IDS].sort()).toEqual(Object.values(CONTRACT).flat().sort())
    expect(Object.keys(SIGNAL_TEXT_KEYS).sort()).toEqual([...SIGNAL_IDS].sort())
    expect([...ALERTABLE_SIGNALS].sort()).toEqual(
      SIGNAL_IDS.filter((id) => !["stray_payments", "webhook_url", "encryption_key", "api_key_age"].includes(id)).sort()
    )
  })

  it.each(Object.values(CONTRACT).flat())("%s has its title, sentences and actions in English and in Russian, and an alert label", (id) => {
    for (const key of SIGNAL_TEXT_KEYS[id as keyof typeof SIGNAL_TEXT_KEYS]) {
      const path = `payin.health.signals.${id}.${key}`
      expect([path, typeof at(en, path)]).toEqual([path, "string"])
      expect([path, typeof at(ru, path)]).toEqual([path, "string"])
      // the Russian text is a translation, not the English one
      expect([path, at(ru, path) === at(en, path)]).toEqual([path, false])
    }
    for (const tree of [en, ru]) expect(typeof at(tree, `payin.settings.alertSignal.${id}`)).toBe("string")
    for (const group of Object.keys(CONTRACT)) for (const tree of [en, ru]) expect(typeof at(tree, `payin.health.group.${group}`)).toBe("string")
  })

  it.each(["en", "ru"] as const)("builds every signal's sentence and action from its figure, in %s, never from the API's English", (language) => {
    for (const id of SIGNAL_IDS) {
      const said = text(language, signal(id))
      expect(said.known).toBe(true)
      for (const part of [said.title, said.sentence, said.action]) {
        expect([id, part]).toEqual([id, expect.stringMatching(/\S/)])
        expect([id, part]).toEqual([id, expect.not.stringMatching(/\{\{|\}\}|undefined|null|NaN|\[object|payin\.health\./)])
        expect([id, part]).toEqual([id, expect.not.stringContaining("English")])
      }
      if (language === "ru") expect([id, /[а-яё]/i.test(said.title + said.sentence + said.action)]).toEqual([id, true])
    }
  })

  it("puts the figure's numbers, address, orders, jobs and times in the sentence", () => {
    const ip = text("ru", signal("service_ip"))
    expect(ip.title).toBe("Адрес магазина не в белом списке")
    expect(ip.sentence).toContain("203.0.113.7")
    expect(ip.sentence).toContain(`Отклонённых вызовов: 2, последний — ${formatDate(AT, "ru")}`)
    expect(ip.action).toBe("Добавьте 203.0.113.7 в белый список IP в кабинете мерчанта.")
    expect(text("en", signal("service_ip")).action).toBe("Add 203.0.113.7 to the IP whitelist in the merchant panel.")
    // the address unknown: the other wording, no "—" in the middle of the action
    const noAddress = text("en", signal("service_ip", { figure: { refused: 1, last_at: AT, address: null } }))
    expect(noAddress.sentence).not.toContain("—")
    expect(noAddress.action).toContain("Test connection")
    // refused earlier, accepted since: a warning that says so
    const accepted = text("en", signal("service_ip", { state: "warning" }))
    expect(accepted.sentence).toBe(`Refusals of this store's address (403) in the last hour: 2, the last at ${formatDate(AT, "en")}; the service accepted it since.`)
    expect(text("ru", signal("service_key", { state: "warning" })).sentence).toContain("с тех пор сервис его принимает")

    expect(text("en", signal("service_errors")).sentence).toBe(
      "Failed calls in the last hour: 12 of 40 (30%): timeouts, 5xx answers, network errors or malformed answers (timeout 9, server_error 3). Mean time 812 ms, longest 15,003 ms."
    )
    expect(text("ru", signal("service_errors")).sentence).toContain("15\u00a0003 мс")
    expect(text("en", signal("effects_failing")).sentence).toBe("Pay-ins whose capture or order cancel is being retried: 2; given up: 1. Orders: order_01A, order_01B.")
    expect(text("en", signal("effects_failing", { figure: { waiting: 1, failed: 0, orders: [] } })).sentence).not.toContain("Orders")
    const jobs = text("en", signal("jobs_overdue")).sentence
    expect(jobs).toBe(`Overdue: payin-reconcile (last run: ${formatDate(AT, "en")}).`)
    const timer = { jobs: [{ name: "payin-webhook-inbox", last_run_at: AT, interval_seconds: 5, overdue: false, run_by_timer: true }] }
    expect(text("en", signal("jobs_overdue", { state: "warning", figure: timer })).sentence).toBe(
      "Medusa's scheduler no longer calls payin-webhook-inbox: the plugin's own timer runs them. Restart the workers to restore Medusa's schedules (Redis restarted without its data?)."
    )
    expect(text("ru", signal("jobs_overdue", { state: "warning", figure: timer })).sentence).toContain("собственный таймер плагина")
    expect(text("ru", signal("webhook_url")).sentence).toBe("URL вебхука http://localhost:9000/hooks/payin/default: не https, не публичный адрес.")
    expect(text("en", signal("webhook_rejections", { figure: { signature_failures: 1, rejected: 1, last_reason: null, window_minutes: 60 } })).sentence).toBe(
      "Webhooks refused in the last 60 min: 1, with a bad signature: 1."
    )
    // a figure missing a key shows "—", not "undefined"
    expect(text("en", signal("stray_payments", { figure: {} })).sentence).toBe("Stray or late payments in the last 30 days: —.")
  })

  it.each(["en", "ru"] as const)("words every signal the backend computes, each in the state it is in, in %s", (language) => {
    const now = new Date(AT)
    const hourAgo = new Date(+now - 30 * 60_000)
    const thresholds = { healthMissedWebhooks: 2, healthRejectedWebhooks: 5, healthServiceErrorPercent: 25, healthRequisitesUnavailablePercent: 50, healthUncapturedMinutes: 15, webhookBacklogSeconds: 120, apiKeyMaxAgeDays: 365 }
    const call = (operation: string, outcome: string, count: number, detail: string | null = null) => ({ operation, outcome, count, total_ms: count * 100, max_ms: 300, last_at: hourAgo, detail })
    const troubled = providerSignals(
      {
        providerId: "pp_payin_default",
        instanceId: "default",
        lastAppliedAt: null,
        missed: 3,
        webhookRefusals: [{ reason: "signature_mismatch", count: 6, last_at: hourAgo }],
        backlog: { count: 4, oldest_at: hourAgo },
        calls: [call("look_up", "ip_not_whitelisted", 2, "127.0.0.1"), call("create_payin", "requisites_unavailable", 4), call("look_up", "timeout", 5), call("create_payin", "key_refused", 1)],
        effects: { waiting: 1, failed: 1, orders: ["order_01A"] },
        uncaptured: { count: 2, oldest_paid_at: hourAgo, orders: ["order_01B"] },
        stray: 1,
        config: { baseUrl: "http://127.0.0.1:4010", production: true, webhookUrl: "http://localhost:9000/hooks/payin/default", encryptionConfigured: false, keySavedAt: new Date(+now - 400 * 86_400_000) },
      },
      thresholds,
      now
    )
    const jobs = jobSignal([{ name: "payin-reconcile", last_run_at: hourAgo, interval_seconds: 10, overdue: true }])
    const signals = [...troubled, jobs]
    expect(signals.filter((s) => s.state === "ok").map((s) => s.id)).toEqual([])
    for (const s of signals) {
      const said = text(language, { ...s, since: AT, alerts: true, alerted_at: null, alert_error: null })
      expect([s.id, said.known]).toEqual([s.id, true])
      for (const part of [said.title, said.sentence, said.action]) {
        expect([s.id, part]).toEqual([s.id, expect.not.stringMatching(/\{\{|\}\}|undefined|null|NaN|\[object|payin\.health\./)])
      }
    }
    const ip = text(language, { ...signals.find((s) => s.id === "service_ip")!, since: AT, alerts: true, alerted_at: null, alert_error: null })
    expect(ip.action).toContain("127.0.0.1")
  })

  it("falls back to the API's English only for a signal it does not know", () => {
    const unknown = text("ru", signal("queue_depth", { summary: "Queue is deep", action: "Drain it" }))
    expect(unknown).toEqual({ title: "Сигнал queue_depth", sentence: "Queue is deep", action: "Drain it", known: false })
  })

  it("groups the problems in the contract's order, failing first, and leaves the OK signals out", () => {
    const signals = [
      signal("api_key_age", { state: "warning" }),
      signal("service_errors", { state: "warning" }),
      signal("service_ip", { state: "failing" }),
      signal("webhooks_missing", { state: "ok" }),
      signal("jobs_overdue", { state: "failing" }),
      signal("queue_depth", { group: "queues", state: "warning" }),
    ]
    expect(groupProblems(signals).map((g) => [g.group, g.signals.map((s) => s.id)])).toEqual([
      ["service", ["service_ip", "service_errors"]],
      ["worker", ["jobs_overdue"]],
      ["configuration", ["api_key_age"]],
      ["queues", ["queue_depth"]],
    ])
    expect(groupProblems([signal("webhooks_missing", { state: "ok" })])).toEqual([])
  })

  it("names rows by signal, with the provider only when there is more than one instance; links by where they lead", () => {
    const one = [signal("service_ip"), signal("jobs_overdue")]
    expect(hasManyInstances(one)).toBe(false)
    expect(signalTestId(one[0], false)).toBe("payin-health-signal-service_ip")
    const two = [...one, signal("service_ip", { provider_id: "pp_payin_second" })]
    expect(hasManyInstances(two)).toBe(true)
    expect(signalTestId(two[2], true)).toBe("payin-health-signal-service_ip-pp_payin_second")
    expect(signalTestId(one[1], true)).toBe("payin-health-signal-jobs_overdue")
    expect(instanceOf("pp_payin_second")).toBe("second")
    expect(instanceOf(null)).toBeNull()
    expect(linkLabelKey("/payin?flag=capture_failed")).toBe("payin.health.openPayins")
    expect(linkLabelKey("/settings/payin#payin-section-connection")).toBe("payin.health.openSettings")
    expect(linkLabelKey("/orders")).toBe("payin.health.openLink")
  })

  it("says where alerts go: the admin's notifications, e-mail, both or neither", () => {
    expect(T.en(alertsKey({ enabled: true, email_recipients: 2 }), { recipients: 2, minutes: 60 })).toBe(
      "Alerts go to the admin's notifications and by e-mail (recipients: 2); a signal alerts again after 60 min at the soonest."
    )
    expect(T.en(alertsKey({ enabled: true, email_recipients: 0 }), { recipients: 0, minutes: 60 })).toContain("(no e-mail recipients)")
    // alertsEnabled false stops the e-mails too
    expect(alertsKey({ enabled: false, email_recipients: 1 })).toBe("payin.health.alertsOff")
    expect(T.ru(alertsKey({ enabled: false, email_recipients: 1 }))).toBe("Оповещения выключены: ни в уведомления админки, ни на e-mail.")
    expect(T.en(alertsKey({ enabled: false, email_recipients: 0 }))).toBe("Alerts are off: neither the admin's notifications nor e-mail.")
  })
})
