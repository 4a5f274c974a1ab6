// Figures → signals: each signal's state, and the English sentence and action the API and the
// alerts give (the admin words them from `id` and `figure` in its own language). Pure.
import { refusedHostName } from "../../../client/address"
import { ERROR_OUTCOMES, type HealthState, type SignalGroup, type SignalId, groupOf } from "../signal-ids"

export const WINDOW_MINUTES = 60
export const STRAY_DAYS = 30
/** Below this many errors (or refusals) a last-hour rate is noise: warning at most. */
export const MIN_FAILING_COUNT = 3

export type Thresholds = {
  healthMissedWebhooks: number
  healthRejectedWebhooks: number
  healthServiceErrorPercent: number
  healthRequisitesUnavailablePercent: number
  healthUncapturedMinutes: number
  webhookBacklogSeconds: number
  apiKeyMaxAgeDays: number
}

export type CallCount = { operation: string; outcome: string; count: number; total_ms: number; max_ms: number; last_at: Date; detail: string | null }

export type ProviderFigures = {
  providerId: string
  instanceId: string
  lastAppliedAt: Date | null
  missed: number
  webhookRefusals: { reason: string; count: number; last_at: Date }[]
  /** Verified webhooks stored longer than `webhookBacklogSeconds` ago and not booked yet. */
  backlog: { count: number; oldest_at: Date | null }
  calls: CallCount[]
  effects: { waiting: number; failed: number; orders: string[] }
  uncaptured: { count: number; oldest_paid_at: Date | null; orders: string[] }
  stray: number
  config: { baseUrl: string | null; production: boolean; webhookUrl: string | null; encryptionConfigured: boolean; keySavedAt: Date | null }
}

export type JobFigure = { name: string; last_run_at: Date | null; interval_seconds: number; overdue: boolean; run_by_timer?: boolean }

export type Signal = {
  id: SignalId
  group: SignalGroup
  provider_id: string | null
  state: HealthState
  figure: Record<string, unknown>
  summary: string
  action: string
  link: string | null
}

const ERRORS = new Set(ERROR_OUTCOMES)
const SETTINGS_LINK = (section: string) => `/settings/payin#payin-section-${section}`
const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)
const percent = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1000) / 10 : 0)
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

function signal(id: SignalId, providerId: string | null, state: HealthState, figure: Record<string, unknown>, summary: string, action: string, link: string | null): Signal {
  return { id, group: groupOf(id), provider_id: providerId, state, figure, summary, action, link }
}

/** ok below `warnAt`, failing from `failAt`, warning between. */
const level = (value: number, warnAt: number, failAt: number): HealthState => (value >= failAt ? "failing" : value >= warnAt ? "warning" : "ok")

/** What a signal's rule gives: the rest of a Signal comes from its place in the table. */
type Judged = { state: HealthState; figure: Record<string, unknown>; summary: string; action: string }
type Context = { f: ProviderFigures; t: Thresholds; now: Date; name: string; calls: CallStats }
type Rule = { id: SignalId; link: string | null; judge: (c: Context) => Judged }

/** The last hour's service calls, summed once for the signals that read them. */
type CallStats = ReturnType<typeof callStats>
function callStats(calls: CallCount[]) {
  const sum = (list: CallCount[]) => list.reduce((s, c) => s + c.count, 0)
  const latest = (list: CallCount[]) => list.reduce<Date | null>((m, c) => (!m || +c.last_at > +m ? c.last_at : m), null)
  const lastOk = latest(calls.filter((c) => c.outcome !== "key_refused" && c.outcome !== "ip_not_whitelisted" && !ERRORS.has(c.outcome)))
  const refusal = (outcome: string) => {
    const list = calls.filter((c) => c.outcome === outcome)
    const last = latest(list)
    // failing while the latest answer of the service is this refusal: a later accepted call ends it
    return { count: sum(list), last, current: Boolean(last && (!lastOk || +last > +lastOk)), detail: list.find((c) => c.detail && +c.last_at === +last!)?.detail ?? list.find((c) => c.detail)?.detail ?? null }
  }
  const byKind: Record<string, { count: number; mean_ms: number; max_ms: number }> = {}
  for (const c of calls) {
    const k = (byKind[c.outcome] ??= { count: 0, mean_ms: 0, max_ms: 0 })
    k.mean_ms = Math.round((k.mean_ms * k.count + c.total_ms) / (k.count + c.count))
    k.count += c.count
    k.max_ms = Math.max(k.max_ms, c.max_ms)
  }
  const total = sum(calls)
  const creations = calls.filter((c) => c.operation === "create_payin")
  return {
    total,
    errors: sum(calls.filter((c) => ERRORS.has(c.outcome))),
    byKind,
    meanMs: total ? Math.round(calls.reduce((s, c) => s + c.total_ms, 0) / total) : 0,
    maxMs: calls.reduce((m, c) => Math.max(m, c.max_ms), 0),
    checkouts: sum(creations),
    unavailable: sum(creations.filter((c) => c.outcome === "requisites_unavailable")),
    key: refusal("key_refused"),
    ip: refusal("ip_not_whitelisted"),
  }
}

/** Every signal of a provider instance, in the order the API lists them. */
const PROVIDER_RULES: Rule[] = [
  {
    id: "webhooks_missing",
    link: SETTINGS_LINK("webhook"),
    judge: ({ f, t, name }) => ({
      state: level(f.missed, 1, t.healthMissedWebhooks),
      figure: { missed: f.missed, last_applied_at: iso(f.lastAppliedAt), window_minutes: WINDOW_MINUTES },
      summary: f.missed
        ? `${plural(f.missed, "pay-in")} of ${name} changed at the service without a webhook (found by reconciliation in the last hour); last webhook applied ${iso(f.lastAppliedAt) ?? "never"}`
        : `Webhooks of ${name} arrive; last applied ${iso(f.lastAppliedAt) ?? "never"}`,
      action: `Check the webhook URL in the merchant panel (${f.config.webhookUrl ?? "this store's /hooks/payin/" + f.instanceId}), the firewall in front of the store and its TLS certificate; reconciliation books the pay-ins meanwhile`,
    }),
  },
  {
    id: "webhook_rejections",
    link: SETTINGS_LINK("connection"),
    judge: ({ f, t, name }) => {
      const signatureFailures = f.webhookRefusals.filter((r) => r.reason.startsWith("signature_")).reduce((s, r) => s + r.count, 0)
      const rejected = f.webhookRefusals.reduce((s, r) => s + r.count, 0)
      const lastRefusal = [...f.webhookRefusals].sort((a, b) => +b.last_at - +a.last_at)[0]
      return {
        state: level(rejected, 1, t.healthRejectedWebhooks),
        figure: { signature_failures: signatureFailures, rejected, last_reason: lastRefusal?.reason ?? null, window_minutes: WINDOW_MINUTES },
        summary: rejected
          ? `${plural(rejected, "webhook")} to ${name} refused in the last hour (${signatureFailures} with a bad signature; last: ${lastRefusal!.reason})`
          : `No webhook to ${name} refused in the last hour`,
        action: "A key rotated in the merchant panel signs with the new key: paste it in the connection settings. Otherwise the refused requests are not from the service and nothing is booked from them",
      }
    },
  },
  {
    id: "webhooks_backlog",
    link: null,
    judge: ({ f: { backlog: b }, t, now, name }) => ({
      state: b.count ? "failing" : "ok",
      figure: { count: b.count, oldest_at: iso(b.oldest_at), waiting_seconds: b.oldest_at ? Math.round((+now - +b.oldest_at) / 1000) : 0, threshold_seconds: t.webhookBacklogSeconds },
      summary: b.count
        ? `${plural(b.count, "webhook")} of ${name} stored more than ${t.webhookBacklogSeconds} s ago ${b.count === 1 ? "is" : "are"} not booked yet (the oldest since ${iso(b.oldest_at)}): no worker books them, or it is far behind`
        : `Every webhook of ${name} is booked within ${t.webhookBacklogSeconds} s`,
      action: "Check that a Medusa process runs in worker or shared mode (MEDUSA_WORKER_MODE) and reaches Redis, and read its logs; the webhooks wait in the inbox and are booked once it runs",
    }),
  },
  {
    id: "service_key",
    link: SETTINGS_LINK("connection"),
    judge: ({ calls: { key }, name }) => ({
      state: key.current ? "failing" : key.count ? "warning" : "ok",
      figure: { refused: key.count, last_at: iso(key.last) },
      summary: key.current
        ? `The service refuses the API key of ${name} (401): ${plural(key.count, "call")} refused in the last hour, the latest at ${iso(key.last)}; no pay-in can be created`
        : key.count
          ? `The service refused the API key of ${name} ${plural(key.count, "time")} in the last hour, then accepted it`
          : `The service accepts the API key of ${name}`,
      action: "Generate a key in the merchant panel if needed and paste it in Settings → Pay-in → Connection (or PAYIN_API_KEY), then Test connection",
    }),
  },
  {
    id: "service_ip",
    link: SETTINGS_LINK("connection"),
    judge: ({ calls: { ip }, name }) => ({
      state: ip.current ? "failing" : ip.count ? "warning" : "ok",
      figure: { refused: ip.count, last_at: iso(ip.last), address: ip.detail },
      summary: ip.current
        ? `The service refuses this store's address${ip.detail ? ` ${ip.detail}` : ""} for ${name} (403 MERCHANT_IP_NOT_WHITELISTED): ${plural(ip.count, "call")} in the last hour, the latest at ${iso(ip.last)}`
        : ip.count
          ? `The service refused this store's address${ip.detail ? ` ${ip.detail}` : ""} ${plural(ip.count, "time")} in the last hour, then accepted it`
          : `The service accepts this store's address for ${name}`,
      action: ip.detail
        ? `Add ${ip.detail} to the IP whitelist in the merchant panel (or empty the whitelist)`
        : "Add this server's outgoing IP address to the IP whitelist in the merchant panel (or empty the whitelist)",
    }),
  },
  {
    id: "service_errors",
    link: SETTINGS_LINK("connection"),
    judge: ({ calls: c, t, name }) => {
      const errorPercent = percent(c.errors, c.total)
      return {
        state: c.errors >= MIN_FAILING_COUNT && errorPercent >= t.healthServiceErrorPercent ? "failing" : c.errors ? "warning" : "ok",
        figure: { calls: c.total, errors: c.errors, error_percent: errorPercent, mean_ms: c.meanMs, max_ms: c.maxMs, by_kind: c.byKind },
        summary: c.errors
          ? `${plural(c.errors, "call")} of ${c.total} to the service failed for ${name} in the last hour (${errorPercent} %: ${Object.entries(c.byKind)
              .filter(([k]) => ERRORS.has(k))
              .map(([k, v]) => `${k} ${v.count}`)
              .join(", ")}); mean ${c.meanMs} ms, slowest ${c.maxMs} ms`
          : `${plural(c.total, "call")} to the service for ${name} in the last hour, none failed; mean ${c.meanMs} ms, slowest ${c.maxMs} ms`,
        action: "Check the service's status and the store's outgoing network; timeouts past timeoutMs may need a longer timeout. Pay-ins are reconciled once it answers",
      }
    },
  },
  {
    id: "requisites_unavailable",
    link: "/payin?status=failed",
    judge: ({ calls: { checkouts, unavailable }, t, name }) => {
      const unavailablePercent = percent(unavailable, checkouts)
      return {
        state: unavailable >= MIN_FAILING_COUNT && unavailablePercent >= t.healthRequisitesUnavailablePercent ? "failing" : unavailable ? "warning" : "ok",
        figure: { checkouts, unavailable, percent: unavailablePercent },
        summary: unavailable
          ? `The service had no payment details for ${plural(unavailable, "checkout")} of ${checkouts} (${unavailablePercent} %) of ${name} in the last hour`
          : `Every checkout of ${name} in the last hour got payment details (${checkouts})`,
        action: "Shoppers cannot pay: ask the service about available requisites, or widen allowedMethods / allowedBanks and the amount policy in the checkout settings",
      }
    },
  },
  {
    id: "effects_failing",
    link: "/payin?flag=capture_failed",
    judge: ({ f: { effects: e }, name }) => ({
      state: e.failed ? "failing" : e.waiting ? "warning" : "ok",
      figure: { waiting: e.waiting, failed: e.failed, orders: e.orders },
      summary:
        e.failed || e.waiting
          ? `${plural(e.waiting + e.failed, "capture or order cancel", "captures or order cancels")} of ${name} keep failing in Medusa (${e.failed} past their retries${e.orders.length ? `; ${e.orders.join(", ")}` : ""})`
          : `Every capture and order cancel of ${name} went through`,
      action: "Open the flagged pay-ins: the error says why Medusa refused (a canceled order, a missing payment). Fix it and use Reconcile now; reconciliation retries at most hourly",
    }),
  },
  {
    id: "paid_not_captured",
    link: "/payin?status=closed",
    judge: ({ f: { uncaptured: u }, t, name }) => ({
      state: u.count ? "failing" : "ok",
      figure: { count: u.count, oldest_paid_at: iso(u.oldest_paid_at), orders: u.orders },
      summary: u.count
        ? `${plural(u.count, "pay-in")} of ${name} paid more than ${t.healthUncapturedMinutes} min ago, not captured and no capture pending (oldest paid ${iso(u.oldest_paid_at)}${u.orders.length ? `; ${u.orders.join(", ")}` : ""})`
        : `Every pay-in of ${name} paid more than ${t.healthUncapturedMinutes} min ago is captured or flagged`,
      action: "Open the pay-ins and use Reconcile now; if it stays, capture the payment on the order",
    }),
  },
  {
    id: "stray_payments",
    link: "/payin?flag=stray_payment",
    judge: ({ f, name }) => ({
      state: f.stray ? "warning" : "ok",
      figure: { count: f.stray, days: STRAY_DAYS },
      summary: f.stray
        ? `${plural(f.stray, "payment")} to ${name} arrived for no live order (stray or late) in the last ${STRAY_DAYS} days`
        : `No stray or late payment to ${name} in the last ${STRAY_DAYS} days`,
      action: "Each is money the store holds without an order: refund it in the merchant panel, or book it to the shopper's order",
    }),
  },
  {
    id: "sandbox_in_production",
    link: SETTINGS_LINK("connection"),
    judge: ({ f: { config }, name }) => {
      const host = config.baseUrl ? safeHost(config.baseUrl) : null
      const wrong = config.production && Boolean(host && isLocalHost(host))
      return {
        state: wrong ? "failing" : "ok",
        figure: { base_url_host: host, production: config.production },
        summary: wrong
          ? `${name} sends pay-ins to ${host}, a local address (the sandbox?), while the store runs in production (NODE_ENV is neither development nor test): shoppers get details no one pays into`
          : `${name} uses ${host ?? "no base URL yet"}`,
        action: "Set the service's production base URL (PAYIN_BASE_URL or Settings → Pay-in → Connection)",
      }
    },
  },
  {
    id: "webhook_url",
    link: SETTINGS_LINK("webhook"),
    judge: ({ f: { config } }) => {
      const url = config.webhookUrl
      const https = Boolean(url?.startsWith("https://"))
      const publicUrl = Boolean(url && !isLocalHost(safeHost(url) ?? "localhost"))
      return {
        state: url && https && publicUrl ? "ok" : config.production ? "warning" : "ok",
        figure: { url, https, public: publicUrl },
        summary: !url
          ? "This store's public URL is unknown, so is its webhook URL"
          : https && publicUrl
            ? `Webhook URL ${url}`
            : !config.production
              ? `Webhook URL ${url} (a local address is fine outside production, e.g. with the sandbox)`
              : `The webhook URL ${url} is ${https ? "" : "not https"}${!https && !publicUrl ? " and " : ""}${publicUrl ? "" : "not public"}: the service cannot deliver to it`,
        action: "Set admin.backendUrl (MEDUSA_BACKEND_URL) to the store's public https address and enter its webhook URL in the merchant panel",
      }
    },
  },
  {
    id: "encryption_key",
    link: SETTINGS_LINK("connection"),
    judge: ({ f: { config } }) => ({
      state: config.encryptionConfigured ? "ok" : "warning",
      figure: { configured: config.encryptionConfigured },
      summary: config.encryptionConfigured ? "PAYIN_ENCRYPTION_KEY is set: a key saved in the admin is stored encrypted" : "PAYIN_ENCRYPTION_KEY is not set: the admin cannot save an API key",
      action: "Set PAYIN_ENCRYPTION_KEY (32+ random characters, the same on every server and worker)",
    }),
  },
  {
    id: "api_key_age",
    link: SETTINGS_LINK("connection"),
    judge: ({ f: { config }, t, now, name }) => {
      const ageDays = config.keySavedAt ? Math.floor((+now - +new Date(config.keySavedAt)) / 86_400_000) : null
      const old = t.apiKeyMaxAgeDays > 0 && ageDays !== null && ageDays > t.apiKeyMaxAgeDays
      return {
        state: old ? "warning" : "ok",
        figure: { saved_at: iso(config.keySavedAt), age_days: ageDays, max_days: t.apiKeyMaxAgeDays },
        summary:
          ageDays === null
            ? `The API key of ${name} comes from the configuration: its age is unknown`
            : `The API key of ${name} was saved ${plural(ageDays, "day")} ago${old ? `, more than ${t.apiKeyMaxAgeDays}` : ""}`,
        action: "Generate a new key in the merchant panel and paste it in Settings → Pay-in → Connection",
      }
    },
  },
]

export function providerSignals(f: ProviderFigures, t: Thresholds, now: Date): Signal[] {
  const context: Context = { f, t, now, name: `"${f.instanceId}"`, calls: callStats(f.calls) }
  return PROVIDER_RULES.map(({ id, link, judge }) => {
    const { state, figure, summary, action } = judge(context)
    return signal(id, f.providerId, state, figure, summary, action, link)
  })
}

export function jobSignal(jobs: JobFigure[]): Signal {
  const overdue = jobs.filter((j) => j.overdue)
  const waiting = jobs.filter((j) => !j.overdue && !j.last_run_at)
  const timer = jobs.filter((j) => !j.overdue && j.run_by_timer)
  const restart = "restart the workers: Medusa keeps its schedules in Redis, which loses them when it restarts without its data"
  return signal(
    "jobs_overdue",
    null,
    overdue.length ? "failing" : timer.length ? "warning" : "ok",
    { jobs: jobs.map((j) => ({ ...j, run_by_timer: Boolean(j.run_by_timer), last_run_at: iso(j.last_run_at) })) },
    overdue.length
      ? `${overdue.map((j) => `${j.name} (due every ${j.interval_seconds} s) has not run ${j.last_run_at ? `since ${iso(j.last_run_at)}` : "since the plugin started"}`).join("; ")}: no process runs the plugin's jobs`
      : timer.length
        ? `Medusa's scheduler no longer calls ${timer.map((j) => j.name).join(", ")}: the plugin's own timer runs them on schedule; ${restart}`
        : waiting.length
          ? `Every job of the plugin runs on schedule (${waiting.map((j) => j.name).join(", ")} not due yet)`
          : "Every job of the plugin runs on schedule",
    `Start a worker (MEDUSA_WORKER_MODE=worker or shared). If workers run, ${restart}`,
    "/settings/payin#payin-section-reconciliation"
  )
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase()
  } catch {
    return null
  }
}

/** What the client's address guard refuses (loopback, private, link-local, metadata …), or a name without a dot. */
export function isLocalHost(host: string): boolean {
  return refusedHostName(host) !== null || (!host.includes(".") && !host.includes(":"))
}
