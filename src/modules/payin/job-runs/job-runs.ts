import { generateEntityId } from "@medusajs/framework/utils"
import type { Db } from "../db"

export type JobRun = { name: string; last_run_at: Date; last_report: Record<string, unknown> | null; runs: number; interval_seconds: number | null }

export class JobRuns {
  constructor(private readonly db: () => Db) {}

  /** A finished run, with the interval it ran under. */
  async record(name: string, report: Record<string, unknown>, intervalSeconds: number): Promise<void> {
    await this.db().raw(
      `insert into payin_job_run (id, name, last_run_at, last_report, runs, interval_seconds) values (?, ?, now(), ?::jsonb, 1, ?)
       on conflict (name) where deleted_at is null
       do update set last_run_at = now(), last_report = excluded.last_report, runs = payin_job_run.runs + 1,
         interval_seconds = excluded.interval_seconds, updated_at = now()`,
      [generateEntityId(undefined, "payinjr"), name, JSON.stringify(report), intervalSeconds]
    )
  }

  /** The run just recorded was started by the plugin's own timer, not by Medusa's scheduler (until Medusa's next run). */
  async markRunByTimer(name: string): Promise<void> {
    await this.db().raw(
      `update payin_job_run set last_report = coalesce(last_report, '{}'::jsonb) || '{"${RUN_BY_KEY}": "plugin_timer"}'::jsonb
       where name = ? and deleted_at is null`,
      [name]
    )
  }

  async last(name: string): Promise<JobRun | null> {
    const result = await this.db().raw(
      `select name, last_run_at, last_report, runs, interval_seconds from payin_job_run where name = ? and deleted_at is null`,
      [name]
    )
    return (result.rows[0] as JobRun | undefined) ?? null
  }

  /** Whether a run is due at this interval, by the database's clock (one clock for every process). */
  async due(name: string, intervalSeconds: number): Promise<boolean> {
    const result = await this.db().raw(
      `select last_run_at <= now() - make_interval(secs => ?) as due from payin_job_run where name = ? and deleted_at is null`,
      [intervalSeconds, name]
    )
    return result.rows[0]?.due ?? true
  }
}

/**
 * The interval an overdue job is judged by: the longer of the one its last run ran under and the
 * current one, so a changed setting never makes a running job look stopped (a lowered interval is
 * taken up at the next tick; a raised one is not due before its new interval).
 */
export function judgedInterval(run: Pick<JobRun, "interval_seconds"> | null, currentSeconds: number): number {
  return Math.max(run?.interval_seconds ?? currentSeconds, currentSeconds)
}

/**
 * A run is skipped while the previous one holds the interval's lock, hence two intervals, plus a
 * slack of one interval kept between 15 s (three of the scheduler's 5 s ticks) and a minute.
 */
export function overdueAfterMs(intervalSeconds: number): number {
  return (2 * intervalSeconds + Math.min(60, Math.max(15, intervalSeconds))) * 1000
}

/** Where the last run says the plugin's own timer started it (Medusa's scheduler had stopped calling the job). */
export const RUN_BY_KEY = "run_by"
export function runByTimer(run: Pick<JobRun, "last_report"> | null): boolean {
  return run?.last_report?.[RUN_BY_KEY] === "plugin_timer"
}

/** No run, or none for two intervals plus the slack, judged by `judgedInterval`. */
export function jobOverdue(run: Pick<JobRun, "last_run_at" | "interval_seconds"> | null, currentSeconds: number, now = Date.now()): boolean {
  return !run || now - new Date(run.last_run_at).getTime() > overdueAfterMs(judgedInterval(run, currentSeconds))
}

/** The plugin's scheduled jobs (src/jobs), named once here, and how often each must run. */
export const RECONCILE_JOB = "payin-reconcile"
export const RETENTION_JOB = "payin-retention"
export const NOTIFICATION_RETRY_JOB = "payin-notification-retry"
/** Claims the webhooks left in the inbox (a lost wake-up, a retry due, a dead process's lease passed). */
export const WEBHOOK_INBOX_JOB = "payin-webhook-inbox"
export const WEBHOOK_INBOX_INTERVAL_SECONDS = 5
export const RETENTION_INTERVAL_SECONDS = 600
export const NOTIFICATION_RETRY_INTERVAL_SECONDS = 60

export function pluginJobs(plugin: { reconcileIntervalSeconds: number }): { name: string; interval_seconds: number }[] {
  return [
    { name: RECONCILE_JOB, interval_seconds: plugin.reconcileIntervalSeconds },
    { name: RETENTION_JOB, interval_seconds: RETENTION_INTERVAL_SECONDS },
    { name: NOTIFICATION_RETRY_JOB, interval_seconds: NOTIFICATION_RETRY_INTERVAL_SECONDS },
    { name: WEBHOOK_INBOX_JOB, interval_seconds: WEBHOOK_INBOX_INTERVAL_SECONDS },
  ]
}
