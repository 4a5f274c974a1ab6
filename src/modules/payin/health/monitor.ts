import type { CreateNotificationDTO, INotificationModuleService, Logger } from "@medusajs/framework/types"
import { errorMessage } from "../../../client/errors"
import { SPANS, traced } from "../../../telemetry"
import { NO_FEED_PROVIDER, notificationOfKey, sendVerdict } from "../../../medusa/notification-module"
import type { Health, HealthEnv } from "./health"
import type { AlertSender, HealthAlert, SendOutcome } from "./deliver"
import { alertNotifications } from "./alerts"

type PluginAlertOptions = { alertsEnabled: boolean; alertEmailRecipients: string[]; alertEmailChannel: string }
type Notifications = { module: () => INotificationModuleService | null; channels: (module: INotificationModuleService, channels: string[]) => Promise<Set<string>> }

/**
 * Sends an alert through the Notification Module, each notification on its own (the e-mails go out
 * whatever the feed does), never on a channel with no provider (Medusa would record a failed
 * notification and throw): that is said once in the outcome, and not retried.
 */
export function notificationSender(notifications: Notifications, options: () => Promise<PluginAlertOptions>, now: () => Date = () => new Date()) {
  return async (alert: HealthAlert): Promise<SendOutcome> => {
    const module = notifications.module()
    if (!module) return { error: "the Notification Module is not loaded in this process", retry: true }
    const o = await options()
    if (!o.alertsEnabled) return { error: null, retry: false }
    const wanted = ["feed", ...(o.alertEmailRecipients.length ? [o.alertEmailChannel] : [])]
    const have = await notifications.channels(module, wanted)
    const missing = wanted.filter((c) => !have.has(c)).map((c) => (c === "feed" ? NO_FEED_PROVIDER : `no notification provider for the "${c}" channel (alertEmailChannel): no alert e-mail can be sent`))
    const all = alertNotifications(alert, { feed: have.has("feed"), recipients: have.has(o.alertEmailChannel) ? o.alertEmailRecipients : [], channel: o.alertEmailChannel }, now())
    const failed: string[] = []
    for (const notification of all) {
      await createOnce(module, notification).catch((error: unknown) => failed.push(`${notification.channel === "feed" ? "feed" : notification.to}: ${errorMessage(error)}`))
    }
    const said = [...missing, ...(failed.length ? [`not sent to ${failed.join("; ")}`] : [])]
    return { error: said.length ? said.join("; ") : null, retry: failed.length > 0 }
  }
}

// Once per idempotency key: a row a killed sender left pending is sent again (sendVerdict); a concurrent twin hits the module's unique key: it went out.
async function createOnce(module: INotificationModuleService, notification: CreateNotificationDTO): Promise<void> {
  const existing = notification.idempotency_key ? await notificationOfKey(module, notification.idempotency_key) : undefined
  const verdict = await sendVerdict(module, existing)
  if (verdict === "sent") return
  if (verdict === "in_flight") throw new Error(`the notification ${existing!.id} is being sent`)
  try {
    await module.createNotifications([{ ...notification, ...(existing ? { id: existing.id } : {}) } as CreateNotificationDTO])
  } catch (error) {
    if (/idempotency_key|already exists|duplicate key/i.test(errorMessage(error))) return
    throw error
  }
}

/** The timer wakes at least this often, so a changed check interval is taken up within it. */
export const HEALTH_TICK_MS = 5_000

/** Every server and worker checks the health on a timer; the state rows make one alert per incident. */
export class HealthMonitor {
  private timer_: NodeJS.Timeout | null = null
  private stopped_ = true
  private lastCheckAt_ = 0

  constructor(
    private readonly health: Health,
    private readonly env: () => HealthEnv,
    private readonly send: AlertSender,
    private readonly interval: () => Promise<number>,
    private readonly logger: () => Logger | undefined
  ) {}

  start(): void {
    if (!this.stopped_) return
    this.stopped_ = false
    this.lastCheckAt_ = Date.now()
    void this.schedule()
  }

  stop(): void {
    this.stopped_ = true
    if (this.timer_) clearTimeout(this.timer_)
    this.timer_ = null
  }

  async checkNow(): Promise<HealthAlert[]> {
    return traced(SPANS.healthCheck, {}, async () => (await this.health.check(this.env(), this.send)).sent)
  }

  private async schedule(): Promise<void> {
    if (this.stopped_) return
    let seconds = 60
    try {
      seconds = await this.interval()
    } catch {
      // settings unreadable (the database restarting): the next tick reads them again
    }
    // wakes when the next check is due or within a tick, whichever is sooner: a new interval applies at once
    const wait = Math.max(0, Math.min(HEALTH_TICK_MS, this.lastCheckAt_ + seconds * 1000 - Date.now()))
    this.timer_ = setTimeout(() => void this.tick(seconds), wait)
    this.timer_.unref?.()
  }

  private async tick(seconds: number): Promise<void> {
    try {
      if (Date.now() - this.lastCheckAt_ < seconds * 1000) return
      this.lastCheckAt_ = Date.now()
      const sent = await this.checkNow()
      for (const alert of sent) this.logger()?.warn(`payin health: ${alert.signal.id}${alert.signal.provider_id ? ` (${alert.signal.provider_id})` : ""} ${alert.kind === "failing" ? "is failing" : "recovered"}: ${alert.signal.summary}`)
    } catch (error) {
      if (!this.stopped_) this.logger()?.warn(`payin health: the check failed: ${errorMessage(error)}`)
    } finally {
      await this.schedule()
    }
  }
}
