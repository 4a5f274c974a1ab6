import type { Logger } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, MedusaService, Modules } from "@medusajs/framework/utils"
import { aroundAll, observeCalls } from "../../client/calls"
import { errorMessage } from "../../client/errors"
import { traceServiceCall } from "../../telemetry"
import { type ConfigLike, configuredBaseUrl, webhookUrl } from "./webhook-url"
import type { Db } from "./db"
import { MinuteCounters } from "./counters/counters"
import { WebhookInbox } from "./inbox/inbox"
import { Health, type HealthEnv } from "./health/health"
import { HealthMonitor, notificationSender } from "./health/monitor"
import { NO_FEED_PROVIDER, channelsWithProvider, loadedNotificationModule } from "../../medusa/notification-module"
import { payinProviderId } from "../../provider-id"
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
  PayinHealthCounter,
  PayinHealthState,
} from "./models"
import { NotificationLog } from "./notification-log/log"
import { ServiceClients } from "./service-clients/clients"
import { PayinPluginOptions, PayinProviderOptionsInput, pluginOptionsSchema } from "./settings/options"
import type { ConfigSources } from "./settings/overrides"
import { parsePluginOptions, parseProviderOptions, runsInProduction } from "./settings/parse"
import { SettingsStore } from "./settings/store"

export type FaultPoint = "record" | "capture" | "cancel_order" | "alert"
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
  PayinHealthCounter,
  PayinHealthState,
}) {
  readonly ledger: Ledger
  readonly inbox: WebhookInbox
  readonly settings: SettingsStore
  readonly clients: ServiceClients
  readonly queries: LedgerQueries
  readonly history: LedgerHistory
  readonly jobs: JobRuns
  readonly notifications: NotificationLog
  readonly insights: LedgerInsights
  readonly rollups: RollupRebuild
  readonly faultPoints: FaultPoints
  readonly health: Health
  readonly counters: MinuteCounters
  readonly healthMonitor: HealthMonitor
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
    const logger = () => this.cradle_[ContainerRegistrationKeys.LOGGER] as Logger | undefined
    // service calls and webhook deliveries, counted per minute in one batcher (the health reads them)
    this.counters = new MinuteCounters(db, (error) => logger()?.warn(`payin: writing the minute counters failed: ${errorMessage(error)}`))
    this.health = new Health(db, this.settings, (this.jobs = new JobRuns(db)), this.counters, (key) => this.faultPoints("alert", key))
    // every call of an instance's client: its span, then the minute counters
    this.clients = new ServiceClients(this.settings, (instanceId) =>
      aroundAll(traceServiceCall, observeCalls((call) => this.counters.call(payinProviderId(instanceId), call)))
    )
    this.inbox = new WebhookInbox(db, this.counters)
    this.healthMonitor = new HealthMonitor(
      this.health,
      () => this.healthEnv(),
      notificationSender({ module: loadedNotificationModule, channels: channelsWithProvider }, () => this.settings.plugin()),
      async () => (await this.settings.plugin()).healthCheckIntervalSeconds,
      logger
    )
    this.queries = new LedgerQueries(db)
    this.history = new LedgerHistory(db)
    this.insights = new LedgerInsights(db)
    this.rollups = new RollupRebuild(db)
    this.faultPoints = typeof options?.faultPoints === "function" ? options.faultPoints : async () => undefined
  }

  // Medusa calls these in every server and worker (not in db:migrate): the health check's timer.
  __hooks = {
    onApplicationStart: async () => {
      this.healthMonitor.start()
      void this.warnWithoutFeed()
    },
    onApplicationPrepareShutdown: async () => this.healthMonitor.stop(),
    onApplicationShutdown: async () => this.healthMonitor.stop(),
  }

  /** A store whose Notification Module has no `feed` provider is told at start-up how to get alerts. */
  private async warnWithoutFeed(): Promise<void> {
    try {
      const module = loadedNotificationModule()
      const plugin = await this.settings.plugin()
      if (!module || !plugin.alertsEnabled || (await channelsWithProvider(module, ["feed"])).has("feed")) return
      ;(this.cradle_[ContainerRegistrationKeys.LOGGER] as Logger | undefined)?.warn(`payin: alerts are on, but ${NO_FEED_PROVIDER}`)
    } catch {
      // the health check reports the same when it sends an alert
    }
  }

  /** Where this process runs: production or not, and the webhook URL the configured backend URL gives. */
  healthEnv(webhookBase?: string | null): HealthEnv {
    const base = webhookBase ?? configuredBaseUrl(this.cradle_[ContainerRegistrationKeys.CONFIG_MODULE] as ConfigLike | undefined)
    return { production: runsInProduction(), webhookUrl: (id) => (base ? webhookUrl(base, id) : null) }
  }
}

export type { LedgerRow, StatusSource }
export default PayinModuleService
