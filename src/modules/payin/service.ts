import { ContainerRegistrationKeys, MedusaService, Modules } from "@medusajs/framework/utils"
import type { Transaction } from "../../client/schemas"
import type { PayinFlag } from "../../status"
import type { Db } from "./db"
import { eventsOf } from "./events"
import { WebhookInbox } from "./inbox"
import { Ledger, LedgerRow, RecordResult, StatusSource } from "./ledger"
import { LedgerQueries } from "./ledger-queries"
import { JobRuns } from "./job-runs"
import {
  PayinJobRun,
  PayinNotification,
  PayinSetting,
  PayinStatusChange,
  PayinTransaction,
  PayinWebhookCounter,
  PayinWebhookEvent,
  PayinWebhookHash,
} from "./models"
import { NotificationLog } from "./notification-log"
import { PayinPluginOptions, PayinProviderOptionsInput, parsePluginOptions, parseProviderOptions, pluginOptionsSchema } from "./options"
import type { ConfigSources } from "./settings"
import { SettingsStore } from "./settings-store"

/** What the plugin module receives: the plugin options plus the provider instances (from withPayin). */
export type PayinModuleOptions = Partial<PayinPluginOptions> & {
  providers?: PayinProviderOptionsInput[]
  sources?: { plugin?: ConfigSources; providers?: Record<string, ConfigSources> }
}

/** How long a ledger write's events may take to hand to the event bus before the write goes on (logged). */
const EMIT_TIMEOUT_MS = 3_000

type EventBus = { emit(message: { name: string; data: unknown }[] | { name: string; data: unknown }): Promise<void> }

/**
 * The plugin's module (`payin`): data the store owns about its pay-ins. A thin service over its
 * parts: `ledger` (the pay-ins and their history: the one writer of a status), `inbox` (verified
 * webhooks), `settings` (the admin's settings over medusa-config), `queries` (read-only views: the
 * admin's, the export, reconciliation's selections), `notifications` (shopper notifications owed and their outcomes). The generated CRUD methods are for reading.
 */
class PayinModuleService extends MedusaService({
  PayinTransaction,
  PayinStatusChange,
  PayinWebhookEvent,
  PayinWebhookCounter,
  PayinSetting,
  PayinJobRun,
  PayinNotification,
  PayinWebhookHash,
}) {
  readonly ledger: Ledger
  readonly inbox: WebhookInbox
  readonly settings: SettingsStore
  readonly queries: LedgerQueries
  readonly jobs: JobRuns
  readonly notifications: NotificationLog
  protected readonly cradle_: Record<string, unknown>

  constructor(container: Record<string, unknown>, options: PayinModuleOptions = {}) {
    // eslint-disable-next-line prefer-rest-params
    super(...arguments)
    this.cradle_ = container
    // Medusa adds its own keys (database, …) to module options: read only the plugin's.
    const plugin = Object.fromEntries(
      Object.keys(pluginOptionsSchema.shape).map((k) => [k, (options as Record<string, unknown>)?.[k]])
    )
    const providers = (options?.providers ?? []).map((p) => parseProviderOptions(p))
    const db = () => this.cradle_[ContainerRegistrationKeys.PG_CONNECTION] as Db
    this.ledger = new Ledger(db)
    this.inbox = new WebhookInbox(db)
    this.queries = new LedgerQueries(db)
    this.jobs = new JobRuns(db)
    this.notifications = new NotificationLog(db)
    this.settings = new SettingsStore(
      db,
      parsePluginOptions(plugin),
      new Map(providers.map((p) => [p.id, p])),
      options?.sources ?? {}
    )
  }

  /**
   * Records what the service says about a pay-in (the ledger's one writer), then emits the events
   * of what changed: dispute moves, new flags. Used by every path that learns a status.
   */
  async recordStatus(
    ledgerId: string,
    tx: Transaction,
    source: StatusSource,
    accepts?: (row: LedgerRow) => boolean
  ): Promise<RecordResult> {
    const result = await this.ledger.record(ledgerId, tx, source, accepts)
    await this.emit(result.row, result.notices)
    return result
  }

  /** Flags a pay-in for the merchant once, and emits payin.payment_flagged when the flag is new. */
  async flag(ledgerId: string, flag: PayinFlag, details: Record<string, unknown>): Promise<boolean> {
    const notices = await this.ledger.flag(ledgerId, flag, details)
    if (notices.length) {
      await this.emit((await this.ledger.get(ledgerId))!, notices)
    }
    return notices.length > 0
  }

  /**
   * The pending effect failed once more: due again after a backoff; flagged (and the event
   * emitted) after the retry limit. `fence`: the failed run's claim (nothing counted when overtaken).
   */
  async effectFailed(ledgerId: string, effect: "capture" | "cancel_order", error: string, fence?: number): Promise<void> {
    const limit = (await this.settings.plugin()).effectRetryLimit
    const notices = await this.ledger.effectFailed(ledgerId, effect, error, limit, fence)
    if (notices.length) {
      await this.emit((await this.ledger.get(ledgerId))!, notices)
    }
  }

  async emit(row: LedgerRow, notices: RecordResult["notices"]): Promise<void> {
    const events = eventsOf(row, notices)
    if (!events.length) return
    try {
      // bounded: with the Redis event bus and Redis down, emit waits for Redis without a limit
      const emitting = (this.cradle_[Modules.EVENT_BUS] as EventBus).emit(events)
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from the event bus within ${EMIT_TIMEOUT_MS} ms`)), EMIT_TIMEOUT_MS)
        timer.unref?.()
      })
      emitting.catch(() => undefined) // a late failure is logged below, or not at all once timed out
      await Promise.race([emitting, late]).finally(() => clearTimeout(timer))
    } catch (error) {
      ;(this.cradle_[ContainerRegistrationKeys.LOGGER] as { warn(m: string): void } | undefined)?.warn(
        `payin: could not emit ${events.map((e) => e.name).join(", ")}: ${error instanceof Error ? error.message : String(error)}`
      )
    }
  }
}

export type { LedgerRow, StatusSource }
export default PayinModuleService
