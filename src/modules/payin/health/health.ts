import { generateEntityId } from "@medusajs/framework/utils"
import type { Db } from "../db"
import { type JobRuns, jobOverdue, judgedInterval, pluginJobs, runByTimer } from "../job-runs/job-runs"
import type { SettingsStore } from "../settings/store"
import { payinProviderId } from "../../../provider-id"
import { EFFECT_FAILED_FLAGS, INSIGHT_FLAGS, UNCAPTURED_EXPLAINED_FLAGS } from "../../../status"
import { type MinuteCounters, refusedCode } from "../counters/counters"
import { type HealthState, worstOf } from "../signal-ids"
import { type CallCount, type ProviderFigures, type Signal, STRAY_DAYS, WINDOW_MINUTES, jobSignal, providerSignals } from "./signals"
import { type StateRow, nextState } from "./state"
import { AlertDelivery, type AlertSender, type HealthAlert, pendingAlert } from "./deliver"

export type { AlertSender, HealthAlert } from "./deliver"

export const PLUGIN_SCOPE = "plugin"

/** What the process knows of where it runs: the figures come from the database, these do not. */
export type HealthEnv = { production: boolean; webhookUrl: (instanceId: string) => string | null }

export type HealthSignal = Signal & { since: string; alerts: boolean; alerted_at: string | null; alert_error: string | null }
export type HealthReport = {
  checked_at: string
  state: HealthState
  check_interval_seconds: number
  alerts: { enabled: boolean; email_recipients: number; min_interval_minutes: number; delivery_error: string | null }
  signals: HealthSignal[]
}


/** The last applied webhook of an instance: one step down its own index, however large the inbox (ledger benchmark). */
export const LAST_APPLIED_SQL = `select max(applied_at) as at from payin_webhook_event where state = 'applied' and provider_id = ? and deleted_at is null`

/**
 * An instance's stored webhooks no one booked since before `?` (webhooks_backlog): read from the
 * partial index of received entries (created_at), whatever the inbox's size (retention spec's EXPLAIN).
 * Failed ones waiting for their retry are not counted: they have an error of their own.
 */
export const WEBHOOK_BACKLOG_SQL = `select count(*)::int as count, min(created_at) as oldest from payin_webhook_event
  where state = 'received' and deleted_at is null and created_at < ? and provider_id = ?`

const scopeOf = (s: Signal) => s.provider_id ?? PLUGIN_SCOPE

/**
 * Every figure comes from the database, so every server and worker sees the same health; each
 * process's check records the states and sends the alerts the state rows say are due.
 */
export class Health {
  readonly delivery: AlertDelivery

  constructor(
    private readonly db: () => Db,
    private readonly settings: SettingsStore,
    private readonly jobs: JobRuns,
    /** Flushed before the figures are read: this process's last 2 s of counts included. */
    private readonly counters: Pick<MinuteCounters, "flush">,
    faultPoint: (key: string) => Promise<void> = async () => undefined
  ) {
    this.delivery = new AlertDelivery(db, faultPoint)
  }

  /** `instanceIds`: the configured instances by default (the ledger benchmark adds its filled one). */
  async signals(env: HealthEnv, now = new Date(), instanceIds?: string[]): Promise<Signal[]> {
    await this.counters.flush().catch(() => undefined)
    const plugin = await this.settings.plugin()
    const ids = instanceIds ?? this.settings.instanceIds()
    const perProvider = await Promise.all(ids.map(async (id) => providerSignals(await this.figures(id, env, now), plugin, now)))
    // A job that never ran is overdue only once the plugin has been checked for longer than its window.
    const first = await this.db().raw(`select min(created_at) as at from payin_health_state where scope = ? and deleted_at is null`, [PLUGIN_SCOPE])
    const firstAt = (first.rows[0]?.at as Date | null) ?? null
    const jobs = await Promise.all(
      pluginJobs(plugin).map(async (job) => {
        const run = await this.jobs.last(job.name)
        const overdue = run ? jobOverdue(run, job.interval_seconds, +now) : Boolean(firstAt && jobOverdue({ last_run_at: firstAt, interval_seconds: null }, job.interval_seconds, +now))
        return { ...job, interval_seconds: judgedInterval(run, job.interval_seconds), last_run_at: run?.last_run_at ?? null, overdue, run_by_timer: runByTimer(run) }
      })
    )
    return [...perProvider.flat(), jobSignal(jobs)]
  }

  async report(env: HealthEnv, now = new Date()): Promise<HealthReport> {
    const [signals, plugin, rows] = await Promise.all([
      this.signals(env, now),
      this.settings.plugin(),
      this.db().raw(`select scope, signal, state, since, alerted_at, last_alert_at, last_alert_error, updated_at from payin_health_state where deleted_at is null`),
    ])
    const stored = new Map(rows.rows.map((r: { scope: string; signal: string }) => [`${r.scope}\n${r.signal}`, r]))
    const latestError = (rows.rows as { last_alert_error: string | null; updated_at: Date }[])
      .filter((r) => r.last_alert_error)
      .sort((a, b) => +new Date(b.updated_at) - +new Date(a.updated_at))[0]
    return {
      checked_at: now.toISOString(),
      state: worstOf(signals.map((s) => s.state)),
      check_interval_seconds: plugin.healthCheckIntervalSeconds,
      alerts: {
        enabled: plugin.alertsEnabled,
        email_recipients: plugin.alertEmailRecipients.length,
        min_interval_minutes: plugin.alertMinIntervalMinutes,
        delivery_error: latestError?.last_alert_error ?? null,
      },
      signals: signals.map((s) => {
        const row = stored.get(`${scopeOf(s)}\n${s.id}`) as { state: string; since: Date; last_alert_at: Date | null; last_alert_error: string | null } | undefined
        return {
          ...s,
          since: (row && row.state === s.state ? new Date(row.since) : now).toISOString(),
          alerts: alerts(plugin, s),
          alerted_at: row?.last_alert_at ? new Date(row.last_alert_at).toISOString() : null,
          alert_error: row?.last_alert_error ?? null,
        }
      }),
    }
  }

  /**
   * Records each signal's state, with the alert it makes due, in one short transaction per row
   * that moves (a row another process holds is skipped: that process records it); then delivers
   * what is pending (deliver.ts), outside any transaction or row lock.
   */
  async check(env: HealthEnv, send: AlertSender, at?: Date): Promise<{ sent: HealthAlert[] }> {
    // the database's clock: every process's checks are ordered by one clock, whatever its machine's
    const now = at ?? new Date((await this.db().raw(`select clock_timestamp() as now`)).rows[0].now)
    const [signals, plugin, rows] = await Promise.all([
      this.signals(env, now),
      this.settings.plugin(),
      this.db().raw(`select scope, signal, state, since, incident_at, alerted_at, last_alert_at from payin_health_state where deleted_at is null`),
    ])
    const stored = new Map(rows.rows.map((r: StateRow & { scope: string; signal: string }) => [`${r.scope}\n${r.signal}`, r]))
    for (const s of signals) {
      const scope = scopeOf(s)
      const policy = { alerts: alerts(plugin, s), minIntervalMs: plugin.alertMinIntervalMinutes * 60_000 }
      // most checks change nothing: only a row that moves, or owes an alert, is locked and written
      const seen = stored.get(`${scope}\n${s.id}`)
      if (seen) {
        const { row, alert } = nextState(seen, s.state, now, policy)
        if (!alert && sameRow(row, seen)) continue
      }
      await this.db().transaction(async (trx) => {
        await trx.raw(
          `insert into payin_health_state (id, scope, signal, state, since, figure, checked_at, pending_alerts) values (?, ?, ?, 'ok', ?, null, ?, '[]'::jsonb)
           on conflict (scope, signal) where deleted_at is null do nothing`,
          [generateEntityId(undefined, "payinhs"), scope, s.id, now, now]
        )
        const locked = await trx.raw(
          `select state, since, incident_at, alerted_at, last_alert_at, checked_at from payin_health_state
           where scope = ? and signal = ? and deleted_at is null for update skip locked`,
          [scope, s.id]
        )
        const prev = locked.rows[0] as (StateRow & { checked_at: Date }) | undefined
        // a check whose figures are older than what another process recorded must not undo it
        if (!prev || +new Date(prev.checked_at) > +now) return
        const { row, alert } = nextState(prev, s.state, now, policy)
        const due = alert ? [pendingAlert(scope, s, alert, now)] : []
        await trx.raw(
          `update payin_health_state set state = ?, since = ?, figure = ?::jsonb, checked_at = ?, incident_at = ?, alerted_at = ?,
             last_alert_at = ?, pending_alerts = pending_alerts || ?::jsonb, updated_at = now()
           where scope = ? and signal = ? and deleted_at is null`,
          [row.state, row.since, JSON.stringify(s.figure), now, row.incident_at, row.alerted_at, row.last_alert_at, JSON.stringify(due), scope, s.id]
        )
      })
    }
    return { sent: await this.delivery.deliver(send, plugin.healthCheckIntervalSeconds) }
  }

  /** Drops up to `limit` minute counters older than `days` (the retention job). */
  async prune(days: number, limit: number): Promise<number> {
    const result = await this.db().raw(
      `delete from payin_health_counter where id in (select id from payin_health_counter where minute < now() - make_interval(days => ?) limit ?)`,
      [days, limit]
    )
    return result.rowCount ?? 0
  }

  private async figures(instanceId: string, env: HealthEnv, now: Date): Promise<ProviderFigures> {
    const providerId = payinProviderId(instanceId)
    const db = this.db()
    const hourAgo = new Date(+now - WINDOW_MINUTES * 60_000)
    const plugin = await this.settings.plugin()
    const paidBefore = new Date(+now - plugin.healthUncapturedMinutes * 60_000)
    const [applied, counters, effects, uncaptured, stray, provider, backlog] = await Promise.all([
      db.raw(LAST_APPLIED_SQL, [providerId]),
      db.raw(
        `select kind, sum(count)::int as count, sum(total_ms)::bigint as total_ms, max(max_ms) as max_ms, max(last_at) as last_at,
                (array_agg(detail order by last_at desc) filter (where detail is not null))[1] as detail
         from payin_health_counter where provider_id = ? and minute >= ? and deleted_at is null group by kind`,
        [providerId, new Date(+hourAgo - (+hourAgo % 60_000))]
      ),
      db.raw(
        `select count(*) filter (where not coalesce(flag_kinds && ?::text[], false))::int as waiting,
                count(*) filter (where flag_kinds && ?::text[])::int as failed,
                (array_agg(coalesce(order_id, cart_id, id) order by next_effect_at))[1:5] as orders
         from payin_transaction
         where effect_pending is not null and provider_id = ? and deleted_at is null
           and (effect_attempts >= 2 or flag_kinds && ?::text[])`,
        [EFFECT_FAILED_FLAGS, EFFECT_FAILED_FLAGS, providerId, EFFECT_FAILED_FLAGS]
      ),
      db.raw(
        `select count(*)::int as count, min(paid_at) as oldest, (array_agg(coalesce(order_id, cart_id, id) order by paid_at))[1:5] as orders
         from payin_transaction
         where provider_id = ? and paid_at is not null and captured_at is null and deleted_at is null and paid_at < ?
           and effect_pending is null and not coalesce(flag_kinds && ?::text[], false)`,
        [providerId, paidBefore, UNCAPTURED_EXPLAINED_FLAGS]
      ),
      db.raw(
        `select count(*)::int as count from payin_transaction
         where flag_kinds && ?::text[] and provider_id = ? and created_at > ? and deleted_at is null`,
        [INSIGHT_FLAGS.stray.flags, providerId, new Date(+now - STRAY_DAYS * 86_400_000)]
      ),
      this.settings.provider(instanceId),
      db.raw(WEBHOOK_BACKLOG_SQL, [new Date(+now - plugin.webhookBacklogSeconds * 1000), providerId]),
    ])
    const lastAppliedAt = (applied.rows[0]?.at as Date | null) ?? null
    const missed = await db.raw(
      `select count(distinct sc.transaction_id)::int as count from payin_status_change sc
       join payin_transaction t on t.id = sc.transaction_id
       where sc.source = 'lookup' and sc.deleted_at is null and sc.created_at > ? and t.provider_id = ?`,
      [lastAppliedAt && +lastAppliedAt > +hourAgo ? lastAppliedAt : hourAgo, providerId]
    )
    const calls: CallCount[] = []
    const webhookRefusals: ProviderFigures["webhookRefusals"] = []
    for (const r of counters.rows as { kind: string; count: number; total_ms: string; max_ms: number; last_at: Date; detail: string | null }[]) {
      const [source, a, b] = r.kind.split(":")
      const refused = refusedCode(r.kind)
      if (source === "call") calls.push({ operation: a, outcome: b, count: r.count, total_ms: Number(r.total_ms), max_ms: r.max_ms, last_at: new Date(r.last_at), detail: r.detail })
      else if (refused) webhookRefusals.push({ reason: refused, count: r.count, last_at: new Date(r.last_at) })
    }
    const e = effects.rows[0]
    const u = uncaptured.rows[0]
    return {
      providerId,
      instanceId,
      lastAppliedAt,
      missed: missed.rows[0].count,
      webhookRefusals,
      backlog: { count: backlog.rows[0].count, oldest_at: backlog.rows[0].oldest ?? null },
      calls,
      effects: { waiting: e.waiting, failed: e.failed, orders: e.orders ?? [] },
      uncaptured: { count: u.count, oldest_paid_at: u.oldest ?? null, orders: u.orders ?? [] },
      stray: stray.rows[0].count,
      config: {
        baseUrl: provider?.options.baseUrl ?? null,
        production: env.production,
        webhookUrl: env.webhookUrl(instanceId),
        encryptionConfigured: this.settings.secretBox.configured,
        keySavedAt: provider?.apiKey.updated_at ?? null,
      },
    }
  }
}

/** `alertsEnabled` false stops every alert, the admin's feed and the e-mails alike. */
function alerts(plugin: { alertsEnabled: boolean; alertSignals: readonly string[] }, s: Signal): boolean {
  return plugin.alertsEnabled && plugin.alertSignals.includes(s.id)
}

const time = (d: Date | null) => (d ? +new Date(d) : null)
function sameRow(a: StateRow, b: StateRow): boolean {
  return a.state === b.state && time(a.since) === time(b.since) && time(a.incident_at) === time(b.incident_at) &&
    time(a.alerted_at) === time(b.alerted_at) && time(a.last_alert_at) === time(b.last_alert_at)
}
