// What the Health section says of a signal, in the admin's language: its title, a sentence built
// from its figure and what fixes it (i18n keys payin.health.signals.<id>.*). The API's English
// summary and action are shown only for a signal this admin has no text of its own for.
import { ERROR_OUTCOMES, SIGNAL_GROUPS, SIGNAL_IDS, type SignalGroup, type SignalId } from "../../modules/payin/signal-ids"
import { instanceIdOf } from "../../provider-id"
import type { HealthSignal, HealthState } from "./health-api"

export { SIGNAL_GROUPS, SIGNAL_IDS }

export type Translate = (key: string, options?: Record<string, unknown>) => string

export type SignalText = { title: string; sentence: string; action: string; known: boolean }

export const GROUPS = Object.keys(SIGNAL_GROUPS) as SignalGroup[]

export const isKnownSignal = (id: string): id is SignalId => (SIGNAL_IDS as readonly string[]).includes(id)

const STATE_ORDER: Record<HealthState, number> = { failing: 0, warning: 1, ok: 2 }

/** The instance id of a provider id ("pp_payin_default" → "default"); null for the plugin's own signals. */
export function instanceOf(providerId: string | null): string | null {
  if (!providerId) return null
  return instanceIdOf(providerId) ?? providerId
}

/** The row's test id: `payin-health-signal-<id>`, with `-<provider id>` when the store has more than one instance. */
export function signalTestId(signal: Pick<HealthSignal, "id" | "provider_id">, manyInstances: boolean): string {
  return manyInstances && signal.provider_id ? `payin-health-signal-${signal.id}-${signal.provider_id}` : `payin-health-signal-${signal.id}`
}

/** Whether the signals name more than one provider instance. */
export function hasManyInstances(signals: readonly Pick<HealthSignal, "provider_id">[]): boolean {
  return new Set(signals.map((s) => s.provider_id).filter(Boolean)).size > 1
}

/** The signals that are not ok, by group in the groups' order (unknown groups last), failing before warning. */
export function groupProblems(signals: readonly HealthSignal[]): { group: string; signals: HealthSignal[] }[] {
  const problems = signals.filter((s) => s.state !== "ok")
  const groups = [...GROUPS, ...new Set(problems.map((s) => s.group).filter((g) => !(GROUPS as string[]).includes(g)))]
  return groups
    .map((group) => ({
      group,
      signals: problems.filter((s) => s.group === group).sort((a, b) => (STATE_ORDER[a.state] ?? 3) - (STATE_ORDER[b.state] ?? 3)),
    }))
    .filter((g) => g.signals.length > 0)
}

/** The i18n key of a signal's link text, by where it leads (the pay-ins list, the settings, elsewhere). */
export function linkLabelKey(link: string): string {
  if (/^\/payin(?:[/?#]|$)/.test(link)) return "payin.health.openPayins"
  if (/^\/settings\/payin(?:[/?#]|$)/.test(link)) return "payin.health.openSettings"
  return "payin.health.openLink"
}

/** The i18n key of the line saying where alerts go: the admin's notifications (the feed), e-mail, both or neither. */
/** `alertsEnabled` false stops every alert, e-mails included. */
export function alertsKey(alerts: { enabled: boolean; email_recipients: number }): string {
  if (!alerts.enabled) return "payin.health.alertsOff"
  return alerts.email_recipients > 0 ? "payin.health.alertsFeedAndEmail" : "payin.health.alertsFeedOnly"
}

type Figure = Record<string, unknown>

/** The outcomes of a service call that count as errors (the service_errors signal's, in src/modules/payin/health/signals.ts). */
type Context = { t: Translate; state: HealthState; number: (v: unknown) => string; date: (v: unknown) => string; list: (v: unknown) => string }
/** The values a signal's sentence and action take, and which of their variants to use. */
type Wording = { values?: Record<string, unknown>; sentence?: string; action?: string }

const WORDINGS: Record<SignalId, (f: Figure, c: Context) => Wording> = {
  webhooks_missing: (f, c) => ({
    values: { missed: c.number(f.missed), window: c.number(f.window_minutes ?? 60), last: f.last_applied_at ? c.date(f.last_applied_at) : c.t("payin.health.never") },
  }),
  webhook_rejections: (f, c) => ({
    values: { signatureFailures: c.number(f.signature_failures), rejected: c.number(f.rejected), window: c.number(f.window_minutes ?? 60), reason: f.last_reason },
    sentence: f.last_reason ? "sentence" : "sentenceNoReason",
  }),
  webhooks_backlog: (f, c) => ({
    values: { count: c.number(f.count), oldest: c.date(f.oldest_at), threshold: c.number(f.threshold_seconds) },
    sentence: Number(f.count) > 0 ? "sentence" : "sentenceNone",
  }),
  // failing while the service's latest answer is the refusal; a warning once a later call was accepted
  service_key: (f, c) => ({ values: { refused: c.number(f.refused), last: c.date(f.last_at) }, sentence: c.state === "failing" ? "sentence" : "sentenceAccepted" }),
  service_ip: (f, c) => ({
    values: { refused: c.number(f.refused), last: c.date(f.last_at), address: f.address },
    sentence: c.state === "failing" ? (f.address ? "sentence" : "sentenceNoAddress") : "sentenceAccepted",
    action: f.address ? "action" : "actionNoAddress",
  }),
  service_errors: (f, c) => {
    const kinds = Object.entries((f.by_kind as Record<string, { count?: unknown }> | undefined) ?? {})
      .filter(([kind, v]) => ERROR_OUTCOMES.includes(kind) && Number(v?.count) > 0)
      .map(([kind, v]) => `${kind} ${c.number(v.count)}`)
    return {
      values: {
        errors: c.number(f.errors),
        calls: c.number(f.calls),
        percent: c.number(f.error_percent),
        mean: c.number(f.mean_ms),
        max: c.number(f.max_ms),
        kinds: kinds.join(", "),
      },
      sentence: kinds.length ? "sentence" : "sentenceNoKinds",
    }
  },
  requisites_unavailable: (f, c) => ({ values: { unavailable: c.number(f.unavailable), checkouts: c.number(f.checkouts), percent: c.number(f.percent) } }),
  effects_failing: (f, c) => ({
    values: { waiting: c.number(f.waiting), failed: c.number(f.failed), orders: c.list(f.orders) },
    sentence: Array.isArray(f.orders) && f.orders.length ? "sentence" : "sentenceNoOrders",
  }),
  paid_not_captured: (f, c) => ({
    values: { count: c.number(f.count), oldest: c.date(f.oldest_paid_at), orders: c.list(f.orders) },
    sentence: Array.isArray(f.orders) && f.orders.length ? "sentence" : "sentenceNoOrders",
  }),
  stray_payments: (f, c) => ({ values: { count: c.number(f.count), days: c.number(f.days ?? 30) } }),
  jobs_overdue: (f, c) => {
    const jobs = ((f.jobs as { name?: string; last_run_at?: string | null; overdue?: boolean }[] | undefined) ?? []).filter((j) => j?.overdue)
    const named = jobs.map((j) => c.t("payin.health.job", { name: j.name, last: j.last_run_at ? c.date(j.last_run_at) : c.t("payin.health.never") }))
    const timer = ((f.jobs as { name?: string; run_by_timer?: boolean; overdue?: boolean }[] | undefined) ?? []).filter((j) => j?.run_by_timer && !j.overdue).map((j) => j.name)
    return { values: { jobs: named.length ? named.join("; ") : timer.join(", ") }, sentence: named.length ? "sentence" : timer.length ? "sentenceTimer" : "sentenceNone" }
  },
  sandbox_in_production: (f) => ({ values: { host: f.base_url_host }, sentence: f.base_url_host ? "sentence" : "sentenceNoHost" }),
  webhook_url: (f, c) => {
    const problems = [f.https === false ? c.t("payin.health.signals.webhook_url.notHttps") : null, f.public === false ? c.t("payin.health.signals.webhook_url.notPublic") : null]
    return { values: { url: f.url, problems: problems.filter(Boolean).join(", ") }, sentence: f.url ? "sentence" : "sentenceNoUrl" }
  },
  encryption_key: () => ({}),
  api_key_age: (f, c) => ({
    values: { age: c.number(f.age_days), saved: c.date(f.saved_at), max: c.number(f.max_days) },
    sentence: f.age_days === null || f.age_days === undefined ? "sentenceUnknown" : "sentence",
  }),
}

/** The signal's title, sentence and action in the admin's language (`formatDate` formats its times). */
export function signalText(t: Translate, signal: Pick<HealthSignal, "id" | "state" | "figure" | "summary" | "action">, language: string, formatDate: (value: string | null | undefined, language: string) => string): SignalText {
  if (!isKnownSignal(signal.id)) {
    return { title: t("payin.health.unknownSignal", { id: signal.id }), sentence: signal.summary ?? "", action: signal.action ?? "", known: false }
  }
  const none = t("payin.common.none")
  const locale = language === "ru" ? "ru-RU" : "en-US"
  const context: Context = {
    t,
    state: signal.state,
    number: (v) => (typeof v === "number" && Number.isFinite(v) ? v.toLocaleString(locale) : none),
    date: (v) => (typeof v === "string" && v ? formatDate(v, language) : none),
    list: (v) => (Array.isArray(v) && v.length ? v.map(String).join(", ") : none),
  }
  const wording = WORDINGS[signal.id](signal.figure ?? {}, context)
  const values = Object.fromEntries(Object.entries(wording.values ?? {}).map(([k, v]) => [k, v === null || v === undefined || v === "" ? none : v]))
  const key = `payin.health.signals.${signal.id}`
  return {
    title: t(`${key}.title`),
    sentence: t(`${key}.${wording.sentence ?? "sentence"}`, values),
    action: t(`${key}.${wording.action ?? "action"}`, values),
    known: true,
  }
}

/** Every i18n key of a signal's texts (its title, each sentence and action variant): the unit tests hold both languages to them. */
export const SIGNAL_TEXT_KEYS: Record<SignalId, readonly string[]> = {
  webhooks_missing: ["title", "sentence", "action"],
  webhook_rejections: ["title", "sentence", "sentenceNoReason", "action"],
  webhooks_backlog: ["title", "sentence", "sentenceNone", "action"],
  service_key: ["title", "sentence", "sentenceAccepted", "action"],
  service_ip: ["title", "sentence", "sentenceNoAddress", "sentenceAccepted", "action", "actionNoAddress"],
  service_errors: ["title", "sentence", "sentenceNoKinds", "action"],
  requisites_unavailable: ["title", "sentence", "action"],
  effects_failing: ["title", "sentence", "sentenceNoOrders", "action"],
  paid_not_captured: ["title", "sentence", "sentenceNoOrders", "action"],
  stray_payments: ["title", "sentence", "action"],
  jobs_overdue: ["title", "sentence", "sentenceNone", "sentenceTimer", "action"],
  sandbox_in_production: ["title", "sentence", "sentenceNoHost", "action"],
  webhook_url: ["title", "sentence", "sentenceNoUrl", "notHttps", "notPublic", "action"],
  encryption_key: ["title", "sentence", "action"],
  api_key_age: ["title", "sentence", "sentenceUnknown", "action"],
}
