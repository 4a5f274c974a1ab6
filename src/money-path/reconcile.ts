import { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../modules/payin/key"
import { errorMessage } from "../client/errors"
import type { LedgerRow } from "../modules/payin/ledger/types"
import type PayinModuleService from "../modules/payin/service"
import { instanceIdOf } from "../provider-id"
import { applyPendingEffect } from "./apply"
import { tryLock } from "./lock"
import { retryWebhookInbox } from "./inbox"
import { reconcileWithService } from "./lookup"

export type ReconcileOptions = {
  /** Only pay-ins created before now minus this many seconds (default: plugin option reconcileAfterSeconds). */
  olderThanSeconds?: number
  /** Rows read per page (memory stays bounded by one page). */
  pageSize?: number
  /** Lookups in flight at once (default: plugin option reconcileConcurrency). */
  concurrency?: number
  /** Restrict to these ledger rows. */
  ids?: string[]
}

export type ReconcileReport = {
  checked: number
  changed: number
  notFound: number
  errors: number
  /** Pay-ins whose pending Medusa effect (capture, order cancel) was retried, and how many got done. */
  effectsRetried: number
  effectsDone: number
  inboxRetried: number
  inboxApplied: number
  durationMs: number
}

/**
 * One reconciliation run: looks up every unfinished pay-in (creating, active or in a dispute)
 * older than a threshold and feeds the answers to the one apply function (a lost callback changes
 * nothing in the end); retries the Medusa effects still pending (a paid pay-in whose capture
 * failed, an expired one whose order was not canceled) whose backoff passed, before and after
 * the retry limit (past it the pay-in is flagged, and still retried, at most hourly); retries
 * webhook inbox entries that failed to apply. Pages through the ledger (keyset by id) with
 * bounded concurrency; the due effects come from a partial index, not a scan of closed pay-ins.
 */
export async function reconcilePayins(container: MedusaContainer, options: ReconcileOptions = {}): Promise<ReconcileReport> {
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
    inboxRetried: 0,
    inboxApplied: 0,
    durationMs: 0,
  }
  // instances without a key or URL are skipped (their pay-ins cannot be looked up)
  const configured = new Map<string, Promise<boolean>>()
  const isConfigured = (providerId: string) => {
    if (!configured.has(providerId)) {
      const id = instanceIdOf(providerId)
      configured.set(providerId, id ? payin.settings.clientFor(id).then(Boolean, () => false) : Promise.resolve(false))
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
    // raw keyset page over the partial index of open pay-ins: the ORM read the same rows 13× slower
    // (6.6 s vs 0.5 s for 50,000 open among 1,000,000; integration-tests/bench/ledger.bench.ts)
    const page = await payin.queries.openPage(olderThan, lastId, pageSize, options.ids)
    if (!page.length) break
    await runBounded(page, concurrency, lookUp)
    lastId = page[page.length - 1].id
    if (page.length < pageSize || options.ids) break
  }

  // effects still pending and due (not looked up above): the ledger already knows their status
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

  if (!options.ids) {
    const inbox = await retryWebhookInbox(container)
    report.inboxRetried = inbox.tried
    report.inboxApplied = inbox.applied
  }
  report.durationMs = Date.now() - started
  return report
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function runBounded<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      await fn(items[next++])
    }
  })
  await Promise.all(workers)
}

/** The reconciliation job's name in payin_job_run (and Medusa's job name). */
export const RECONCILE_JOB = "payin-reconcile"

/**
 * The scheduled entry: at most one run at a time across instances (a lock), and not more often
 * than the plugin's reconcileIntervalSeconds.
 */
export async function reconcilePayinsScheduled(container: MedusaContainer): Promise<ReconcileReport | null> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const owner = `reconcile-${process.pid}-${Math.random().toString(36).slice(2)}`
  const ttl = (await payin.settings.plugin()).reconcileIntervalSeconds
  // The lock is held for the interval (not released after the run): other instances skip until it expires.
  const acquired = await tryLock(container, "payin:reconcile", owner, ttl)
  if (!acquired) return null
  const report = await reconcilePayins(container)
  await payin.jobs.record(RECONCILE_JOB, report).catch((error: unknown) => {
    container.resolve("logger").warn(`payin: could not record the reconciliation run: ${errorMessage(error)}`)
  })
  if (report.checked || report.inboxRetried || report.effectsRetried) {
    container
      .resolve("logger")
      .info(
        `payin reconciliation: ${report.checked} looked up, ${report.changed} changed, ${report.notFound} not found, ` +
          `${report.errors} errors, effects ${report.effectsDone}/${report.effectsRetried} done, ` +
          `inbox ${report.inboxApplied}/${report.inboxRetried} applied (${report.durationMs} ms)`
      )
  }
  return report
}
