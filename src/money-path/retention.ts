import { MedusaContainer } from "@medusajs/framework/types"
import { errorMessage } from "../client/errors"
import { PAYIN_MODULE } from "../modules/payin/key"
import { RETENTION_INTERVAL_SECONDS, RETENTION_JOB } from "../modules/payin/job-runs/job-runs"
import type PayinModuleService from "../modules/payin/service"
import { tryLock } from "./lock"

export type RetentionOptions = {
  webhookRetentionDays?: number
  webhookCounterRetentionDays?: number
  historyRetentionDays?: number
  batchSize?: number
  budgetMs?: number
}

export type RetentionReport = {
  inboxPruned: number
  countersPruned: number
  hashesPruned: number
  historyPruned: number
  /** Minute counts of webhook deliveries moved into their day's row (older than FOLD_AFTER_MINUTES). */
  countersFolded: number
  /** The health's minute counters older than HEALTH_COUNTER_DAYS (only the last hour is read). */
  healthCountersPruned: number
  batches: number
  more: boolean
  webhookRetentionDays: number
  webhookCounterRetentionDays: number
  historyRetentionDays: number
  durationMs: number
}

export { RETENTION_JOB }
export const HEALTH_COUNTER_DAYS = 2
/** Past the health's last hour, with an hour's margin. */
export const FOLD_AFTER_MINUTES = 120
const HEALTH_COUNTER_PRUNE_LIMIT = 100_000
export const RETENTION_SCHEDULE = "*/10 * * * *"
const RETENTION_LOCK_SECONDS = 9 * 60
const RETENTION_BUDGET_MS = 5 * 60_000

export async function prunePayinRecords(container: MedusaContainer, options: RetentionOptions = {}): Promise<RetentionReport> {
  const started = Date.now()
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const plugin = await payin.settings.plugin()
  const webhookDays = options.webhookRetentionDays ?? plugin.webhookRetentionDays
  const counterDays = options.webhookCounterRetentionDays ?? plugin.webhookCounterRetentionDays
  const historyDays = options.historyRetentionDays ?? plugin.historyRetentionDays
  const batchSize = options.batchSize ?? plugin.pruneBatchSize
  const deadline = started + (options.budgetMs ?? RETENTION_BUDGET_MS)
  const report: RetentionReport = {
    inboxPruned: 0,
    countersPruned: 0,
    hashesPruned: 0,
    historyPruned: 0,
    countersFolded: 0,
    healthCountersPruned: 0,
    batches: 0,
    more: false,
    webhookRetentionDays: webhookDays,
    webhookCounterRetentionDays: counterDays,
    historyRetentionDays: historyDays,
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
  // delivery counts past the health's hour go to their day's row first, then the minute counters
  // older than a fixed window are dropped: one statement each (a busy day is a few thousand rows)
  report.countersFolded = await payin.inbox.foldCounters(FOLD_AFTER_MINUTES, HEALTH_COUNTER_PRUNE_LIMIT)
  report.healthCountersPruned = await payin.health.prune(HEALTH_COUNTER_DAYS, HEALTH_COUNTER_PRUNE_LIMIT)
  if (historyDays > 0) {
    const bound = await payin.history.pruneBound(historyDays)
    let after = 0
    while (after < bound) {
      if (Date.now() > deadline) {
        report.more = true
        break
      }
      const batch = await payin.history.pruneEnded(historyDays, after, bound, batchSize)
      report.batches++
      report.historyPruned += batch.deleted
      if (batch.next === null) break
      after = batch.next
    }
  }
  report.durationMs = Date.now() - started
  return report
}

/** The lock is held for most of the interval: other workers skip the tick. */
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
  await payin.jobs.record(RETENTION_JOB, report, RETENTION_INTERVAL_SECONDS).catch((error: unknown) => {
    logger.warn(`payin: could not record the retention run: ${errorMessage(error)}`)
  })
  if (report.inboxPruned || report.countersPruned || report.historyPruned) {
    logger.info(
      `payin retention: ${report.inboxPruned} applied webhook entries, ${report.countersPruned} daily webhook counters and ` +
        `${report.historyPruned} status-history rows of ended pay-ins pruned ` +
        `in ${report.batches} batches (${report.durationMs} ms)${report.more ? "; more next run" : ""}`
    )
  }
  return report
}
