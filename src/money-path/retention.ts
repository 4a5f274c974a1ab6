import { MedusaContainer } from "@medusajs/framework/types"
import { errorMessage } from "../client/errors"
import { PAYIN_MODULE } from "../modules/payin/key"
import type PayinModuleService from "../modules/payin/service"
import { tryLock } from "./lock"

/**
 * Retention (issue 15), the job runner: what the plugin deletes, and when (the module deletes, in
 * batches; this decides what and holds the job's lock). Only two kinds of rows ever go:
 *   - applied webhook-inbox entries (with their raw bodies), webhookRetentionDays after they were
 *     applied; received, failed and rejected entries are never pruned;
 *   - per-day webhook counters (deliveries accepted, repeated, refused), webhookCounterRetentionDays
 *     after their day.
 * The ledger (payin_transaction) and its status history (payin_status_change) are never pruned.
 * 0 days keeps that kind forever. Deletes run in batches of pruneBatchSize rows, each its own
 * short statement, so a large backlog never holds a long transaction on a busy table.
 */
export type RetentionOptions = {
  webhookRetentionDays?: number
  webhookCounterRetentionDays?: number
  batchSize?: number
  /** Stop starting new batches after this long (the rest waits for the next run). */
  budgetMs?: number
}

export type RetentionReport = {
  inboxPruned: number
  countersPruned: number
  /** Kept hashes of pruned inbox entries (duplicates stay duplicates) past webhookCounterRetentionDays. */
  hashesPruned: number
  batches: number
  /** True when the time budget ended the run with rows still due (the next run goes on). */
  more: boolean
  webhookRetentionDays: number
  webhookCounterRetentionDays: number
  durationMs: number
}

/** The retention job's name in payin_job_run (and Medusa's job name). */
export const RETENTION_JOB = "payin-retention"
/** How often the retention job runs (cron): every ten minutes, once across all processes. */
export const RETENTION_SCHEDULE = "*/10 * * * *"
const RETENTION_LOCK_SECONDS = 9 * 60
const RETENTION_BUDGET_MS = 5 * 60_000

export async function prunePayinRecords(container: MedusaContainer, options: RetentionOptions = {}): Promise<RetentionReport> {
  const started = Date.now()
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const plugin = await payin.settings.plugin()
  const webhookDays = options.webhookRetentionDays ?? plugin.webhookRetentionDays
  const counterDays = options.webhookCounterRetentionDays ?? plugin.webhookCounterRetentionDays
  const batchSize = options.batchSize ?? plugin.pruneBatchSize
  const deadline = started + (options.budgetMs ?? RETENTION_BUDGET_MS)
  const report: RetentionReport = {
    inboxPruned: 0,
    countersPruned: 0,
    hashesPruned: 0,
    batches: 0,
    more: false,
    webhookRetentionDays: webhookDays,
    webhookCounterRetentionDays: counterDays,
    durationMs: 0,
  }
  const drain = async (prune: (limit: number) => Promise<number>, add: (n: number) => void) => {
    for (;;) {
      if (Date.now() > deadline) {
        report.more = true
        return
      }
      const deleted = await prune(batchSize)
      report.batches++
      add(deleted)
      if (deleted < batchSize) return
    }
  }
  if (webhookDays > 0) await drain((n) => payin.inbox.pruneApplied(webhookDays, n), (n) => (report.inboxPruned += n))
  if (counterDays > 0) await drain((n) => payin.inbox.pruneCounters(counterDays, n), (n) => (report.countersPruned += n))
  // the hashes of pruned entries (duplicates stay duplicates) are kept as long as the counters
  if (counterDays > 0) await drain((n) => payin.inbox.pruneHashes(counterDays, n), (n) => (report.hashesPruned += n))
  report.durationMs = Date.now() - started
  return report
}

/**
 * The scheduled entry: one run at a time across all processes (a lock held for most of the
 * interval, so other workers skip the tick), recorded in payin_job_run for the admin.
 */
export async function prunePayinRecordsScheduled(container: MedusaContainer): Promise<RetentionReport | null> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const owner = `retention-${process.pid}-${Math.random().toString(36).slice(2)}`
  if (!(await tryLock(container, "payin:retention", owner, RETENTION_LOCK_SECONDS))) return null
  const logger = container.resolve("logger")
  let report: RetentionReport
  try {
    report = await prunePayinRecords(container)
  } catch (error) {
    logger.warn(`payin retention: the run stopped: ${errorMessage(error)}`)
    return null
  }
  await payin.jobs.record(RETENTION_JOB, report).catch((error: unknown) => {
    logger.warn(`payin: could not record the retention run: ${errorMessage(error)}`)
  })
  if (report.inboxPruned || report.countersPruned) {
    logger.info(
      `payin retention: ${report.inboxPruned} applied webhook entries and ${report.countersPruned} daily webhook counters pruned ` +
        `in ${report.batches} batches (${report.durationMs} ms)${report.more ? "; more next run" : ""}`
    )
  }
  return report
}
