import { ContainerRegistrationKeys, MedusaService, Modules } from "@medusajs/framework/utils"
import type { Db } from "./db"
import { WebhookInbox } from "./inbox/inbox"
import { LedgerInsights } from "./insights/insights"
import { RollupRebuild } from "./insights/rebuild"
import { JobRuns } from "./job-runs/job-runs"
import { type EventBus, eventBusSink } from "./ledger/events"
import { Ledger } from "./ledger/ledger"
import { LedgerHistory } from "./ledger/history"
import { LedgerQueries } from "./ledger/queries"
import type { LedgerRow, StatusSource } from "./ledger/types"
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
import { NotificationLog } from "./notification-log/log"
import { PayinPluginOptions, PayinProviderOptionsInput, pluginOptionsSchema } from "./settings/options"
import type { ConfigSources } from "./settings/overrides"
import { parsePluginOptions, parseProviderOptions } from "./settings/parse"
import { SettingsStore } from "./settings/store"

export type FaultPoint = "record" | "capture" | "cancel_order"
export type FaultPoints = (point: FaultPoint, id: string) => Promise<void>

export type PayinModuleOptions = Partial<PayinPluginOptions> & {
  providers?: PayinProviderOptionsInput[]
  sources?: { plugin?: ConfigSources; providers?: Record<string, ConfigSources> }
  /** For the plugin's own tests (integration-tests/app): called at each FaultPoint; nothing in a store. */
  faultPoints?: FaultPoints
}

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
  readonly history: LedgerHistory
  readonly jobs: JobRuns
  readonly notifications: NotificationLog
  readonly insights: LedgerInsights
  readonly rollups: RollupRebuild
  readonly faultPoints: FaultPoints
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
    this.settings = new SettingsStore(
      db,
      parsePluginOptions(plugin),
      new Map(providers.map((p) => [p.id, p])),
      options?.sources ?? {}
    )
    this.notifications = new NotificationLog(db)
    this.ledger = new Ledger(db, {
      emit: eventBusSink(
        () => this.cradle_[Modules.EVENT_BUS] as EventBus,
        () => this.cradle_[ContainerRegistrationKeys.LOGGER] as { warn(m: string): void } | undefined
      ),
      effectRetryLimit: async () => (await this.settings.plugin()).effectRetryLimit,
      notifications: this.notifications,
    })
    this.inbox = new WebhookInbox(db)
    this.queries = new LedgerQueries(db)
    this.history = new LedgerHistory(db)
    this.jobs = new JobRuns(db)
    this.insights = new LedgerInsights(db)
    this.rollups = new RollupRebuild(db)
    this.faultPoints = typeof options?.faultPoints === "function" ? options.faultPoints : async () => undefined
  }
}

export type { LedgerRow, StatusSource }
export default PayinModuleService
