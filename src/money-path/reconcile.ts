import { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../modules/payin/key"
import { RECONCILE_JOB } from "../modules/payin/job-runs/job-runs"
import { errorMessage } from "../client/errors"
import type { LedgerRow } from "../modules/payin/ledger/types"
import type PayinModuleService from "../modules/payin/service"
import { instanceIdOf } from "../provider-id"
import { traceReconcile } from "../telemetry"
import { applyPendingEffect } from "./apply"
import { LockTimeoutError, withLock } from "./lock"
import { reconcileWithService } from "./lookup"

export type ReconcileOptions = {
  olderThanSeconds?: number
  pageSize?: number
  concurrency?: number
  ids?: string[]
}

export type ReconcileReport = {
  checked: number
  changed: number
  notFound: number
  errors: number
  effectsRetried: number
  effectsDone: number
  durationMs: number
}

export function reconcilePayins(container: MedusaContainer, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  return traceReconcile(() => reconcile(container, options))
}

async function reconcile(container: MedusaContainer, options: ReconcileOptions): Promise<ReconcileReport> {
  const started = Date.now()
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const logger = container.resolve("logger")
  const plugin = await payin.settings.plugin()
  const olderThan = new Date(Date.now() - (options.olderThanSeconds ?? plugin.reconcileAfterSeconds) * 1000)
  const pageSize = options.pageSize ?? 200
  const concurrency = options.concurrency ?? plugin.reconcileConcurrency
  const report: ReconcileReport = {
    checked: 0,
    changed: 0,
    notFound: 0,
    errors: 0,
    effectsRetried: 0,
    effectsDone: 0,
    durationMs: 0,
  }
  const configured = new Map<string, Promise<boolean>>()
  const isConfigured = (providerId: string) => {
    if (!configured.has(providerId)) {
      const id = instanceIdOf(providerId)
      configured.set(providerId, id ? payin.clients.clientFor(id).then(Boolean, () => false) : Promise.resolve(false))
    }
    return configured.get(providerId)!
  }

  const lookUp = async (row: LedgerRow) => {
    if (!(await isConfigured(row.provider_id))) return
    report.checked++
    try {
      const result = await reconcileWithService(container, row, "lookup", { skipUnchanged: true })
      if (!result.found) report.notFound++
      if (result.changed || result.effects.length) report.changed++
    } catch (error) {
      report.errors++
      logger.warn(`payin: reconciling ${row.id} failed: ${errorMessage(error)}`)
    }
  }

  let lastId = ""
  for (;;) {
    // raw keyset page: the ORM read the same rows 13× slower (integration-tests/bench/ledger.bench.ts)
    const page = await payin.queries.openPage(olderThan, lastId, pageSize, options.ids)
    if (!page.length) break
    await runBounded(page, concurrency, lookUp)
    lastId = page[page.length - 1].id
    if (page.length < pageSize || options.ids) break
  }

  let afterId = ""
  for (;;) {
    const page = await payin.queries.dueEffects(pageSize, afterId)
    if (!page.length) break
    const rows = options.ids ? page.filter((r) => options.ids!.includes(r.id)) : page
    await runBounded(rows, concurrency, async (row) => {
      report.effectsRetried++
      try {
        const outcome = await applyPendingEffect(container, row.id)
        if (!outcome.pending) report.effectsDone++
      } catch (error) {
        report.errors++
        logger.warn(`payin: retrying the effect of ${row.id} failed: ${errorMessage(error)}`)
      }
    })
    afterId = page[page.length - 1].id
    if (page.length < pageSize) break
  }

  report.durationMs = Date.now() - started
  return report
}

async function runBounded<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      await fn(items[next++])
    }
  })
  await Promise.all(workers)
}

export { RECONCILE_JOB }

/**
 * Runs when the last recorded run is at least the current interval old (so a changed interval is
 * kept from the next 5 s tick on). The lock is held only while the run lasts, and the record is
 * read again under it: of the processes that found a run due, one runs it.
 */
export async function reconcilePayinsScheduled(container: MedusaContainer): Promise<ReconcileReport | null> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const plugin = await payin.settings.plugin()
  const interval = plugin.reconcileIntervalSeconds
  if (!(await payin.jobs.due(RECONCILE_JOB, interval))) return null
  let report: ReconcileReport | null
  try {
    report = await withLock(
      container,
      "payin:reconcile",
      async () => {
        if (!(await payin.jobs.due(RECONCILE_JOB, interval))) return null
        const done = await reconcilePayins(container)
        // recorded before the lock is released: the next holder reads this run
        await payin.jobs.record(RECONCILE_JOB, done, interval).catch((error: unknown) => {
          container.resolve("logger").warn(`payin: could not record the reconciliation run: ${errorMessage(error)}`)
        })
        return done
      },
      { expireSeconds: plugin.lockTtlSeconds, waitMs: 0 }
    )
  } catch (error) {
    if (error instanceof LockTimeoutError) return null
    throw error
  }
  if (!report) return null
  if (report.checked || report.effectsRetried) {
    container
      .resolve("logger")
      .info(
        `payin reconciliation: ${report.checked} looked up, ${report.changed} changed, ${report.notFound} not found, ` +
          `${report.errors} errors, effects ${report.effectsDone}/${report.effectsRetried} done (${report.durationMs} ms)`
      )
  }
  return report
}
