import { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { PAYIN_MODULE } from "../../medusa-plugin.config"
import { PayinClient } from "../client/client"
import { PayinServiceError, errorMessage } from "../client/errors"
import { Transaction } from "../client/schemas"
import type PayinModuleService from "../modules/payin/service"
import type { LedgerRow, StatusSource } from "../modules/payin/service"
import { OPEN_STATUSES } from "../modules/payin/transitions"
import { applyPayinEvent } from "./apply-payin-event"
import { instanceIdOf, retryWebhookInbox } from "./webhook-inbox"

export type ReconcileOptions = {
  /** Only pay-ins created before now minus this many seconds (default: plugin option reconcileAfterSeconds). */
  olderThanSeconds?: number
  /** Rows read per page (memory stays bounded by one page). */
  pageSize?: number
  /** Lookups in flight at once (default: plugin option reconcileConcurrency). */
  concurrency?: number
  /** Restrict to these ledger rows (the admin's "reconcile now"). */
  ids?: string[]
}

export type ReconcileReport = {
  checked: number
  changed: number
  notFound: number
  errors: number
  inboxRetried: number
  inboxApplied: number
  durationMs: number
}

/**
 * Looks up every unfinished pay-in (active, creating or in a dispute state) older than a threshold
 * and feeds what the service says into the same apply-path as webhooks: a lost callback changes
 * nothing in the end. Pages through the ledger (keyset by id) with bounded concurrency, then
 * retries webhook inbox entries that failed to apply.
 */
export async function reconcilePayins(container: MedusaContainer, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const started = Date.now()
  const ledger = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const logger = container.resolve("logger")
  const plugin = await ledger.effectivePluginOptions()
  const olderThan = new Date(Date.now() - (options.olderThanSeconds ?? plugin.reconcileAfterSeconds) * 1000)
  const pageSize = options.pageSize ?? 200
  const concurrency = options.concurrency ?? plugin.reconcileConcurrency
  const report: ReconcileReport = { checked: 0, changed: 0, notFound: 0, errors: 0, inboxRetried: 0, inboxApplied: 0, durationMs: 0 }
  const clients = new Map<string, Promise<PayinClient | null>>()
  // one client per instance for the whole run (its settings as of the start of the run)
  const clientFor = (providerId: string): Promise<PayinClient | null> => {
    if (!clients.has(providerId)) {
      clients.set(providerId, ledger.clientFor(instanceIdOf(providerId)).catch(() => null))
    }
    return clients.get(providerId)!
  }

  const reconcileRow = async (row: LedgerRow) => {
    const client = await clientFor(row.provider_id)
    if (!client) {
      return
    }
    report.checked++
    try {
      let transaction: Transaction | null = null
      if (row.service_id) {
        transaction = await client.getTransaction(row.service_id)
      } else if (row.session_id) {
        transaction = await client.findByExternalId(row.session_id)
      }
      if (!transaction) {
        report.notFound++
        if (row.status === "creating" && !row.service_id) {
          // the request never created anything: nothing to track
          await ledger.updatePayinTransactions({ id: row.id, status: "failed", last_error: "no pay-in at the service" } as never)
        }
        return
      }
      if (
        transaction.status === row.status &&
        transaction.fiatAmount === row.fiat_amount &&
        (row.status !== "closed" || row.captured_at)
      ) {
        return // nothing new: no lock, no write
      }
      const result = await applyPayinEvent(container, {
        instanceId: instanceIdOf(row.provider_id),
        transaction,
        source: "lookup",
      })
      if (result.changed || result.effects.length) {
        report.changed++
      }
    } catch (error) {
      report.errors++
      logger.warn(`payin: reconciling ${row.id} failed: ${errorMessage(error)}`)
    }
  }

  let lastId = ""
  for (;;) {
    const filters: Record<string, unknown> = {
      status: [...OPEN_STATUSES],
      created_at: { $lt: olderThan },
      ...(lastId ? { id: { $gt: lastId } } : {}),
      ...(options.ids ? { id: options.ids } : {}),
    }
    const page = (await ledger.listPayinTransactions(filters, {
      take: pageSize,
      order: { id: "ASC" },
      select: ["id", "provider_id", "service_id", "session_id", "status", "fiat_amount", "captured_at"],
    })) as unknown as LedgerRow[]
    if (!page.length) {
      break
    }
    await runBounded(page, concurrency, reconcileRow)
    lastId = page[page.length - 1].id
    if (page.length < pageSize || options.ids) {
      break
    }
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
      const item = items[next++]
      await fn(item)
    }
  })
  await Promise.all(workers)
}

/**
 * The scheduled entry: at most one run at a time across instances (a lock), and not more often
 * than the plugin's reconcileIntervalSeconds.
 */
export async function reconcilePayinsScheduled(container: MedusaContainer): Promise<ReconcileReport | null> {
  const ledger = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const locking = container.resolve(Modules.LOCKING)
  const key = "payin:reconcile"
  const owner = `reconcile-${process.pid}-${Math.random().toString(36).slice(2)}`
  const ttl = (await ledger.effectivePluginOptions()).reconcileIntervalSeconds
  // The lock is held for the interval (not released after the run): other instances skip until it expires.
  const acquired = await locking.acquire(key, { ownerId: owner, expire: ttl }).then(
    () => true,
    () => false
  )
  if (!acquired) {
    return null
  }
  const report = await reconcilePayins(container)
  if (report.checked || report.inboxRetried) {
    container
      .resolve("logger")
      .info(
        `payin reconciliation: ${report.checked} looked up, ${report.changed} changed, ${report.notFound} not found, ` +
          `${report.errors} errors, inbox ${report.inboxApplied}/${report.inboxRetried} applied (${report.durationMs} ms)`
      )
  }
  return report
}

export type ReconcileOneResult = {
  /** The service knows the pay-in. */
  found: boolean
  changed: boolean
  from: string
  to: string
  effects: string[]
}

/**
 * "Reconcile now" of one pay-in (admin): a fresh lookup at the service, applied through the same
 * apply-path as webhooks, whatever the ledger status (a closed pay-in can still move into a
 * dispute). Service errors are thrown as PayinServiceError for the caller to report.
 */
export async function reconcilePayin(
  container: MedusaContainer,
  ledgerId: string,
  source: Exclude<StatusSource, "create" | "webhook"> = "admin"
): Promise<ReconcileOneResult> {
  const ledger = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const row = (await ledger.retrievePayinTransaction(ledgerId)) as unknown as LedgerRow
  const instanceId = instanceIdOf(row.provider_id)
  const client = await ledger.clientFor(instanceId)
  if (!client) {
    throw new PayinServiceError("unauthorized", `The provider instance "${instanceId}" has no API key or base URL configured`)
  }
  const transaction = row.service_id
    ? await client.getTransaction(row.service_id)
    : row.session_id
      ? await client.findByExternalId(row.session_id)
      : null
  if (!transaction) {
    if (row.status === "creating") {
      await ledger.updatePayinTransactions({ id: row.id, status: "failed", last_error: "no pay-in at the service" } as never)
      return { found: false, changed: true, from: row.status, to: "failed", effects: [] }
    }
    return { found: false, changed: false, from: row.status, to: row.status, effects: [] }
  }
  const result = await applyPayinEvent(container, { instanceId, transaction, source })
  return { found: true, changed: result.changed, from: row.status, to: result.status, effects: result.effects }
}
