import type { CreateNotificationDTO, INotificationModuleService, Logger } from "@medusajs/framework/types"
import { errorMessage } from "../../../client/errors"
import { SPANS, traced } from "../../../telemetry"
import type { Health, HealthAlert, HealthEnv } from "./health"
import { alertNotifications } from "./alerts"

type PluginAlertOptions = { alertsEnabled: boolean; alertEmailRecipients: string[]; alertEmailChannel: string; healthCheckIntervalSeconds: number }

/**
 * Sends an alert through the Notification Module: the feed notification must go out (else it
 * throws and the check sends it again); an e-mail that fails is only reported.
 */
export function notificationSender(
  notifications: () => INotificationModuleService | null,
  options: () => Promise<PluginAlertOptions>,
  now: () => Date = () => new Date()
) {
  return async (alert: HealthAlert): Promise<string | null> => {
    const module = notifications()
    if (!module) throw new Error("the Notification Module is not loaded in this process")
    const o = await options()
    const all = alertNotifications(alert, { feed: o.alertsEnabled, recipients: o.alertEmailRecipients, channel: o.alertEmailChannel }, now())
    const [feed, emails] = [all.filter((n) => n.channel === "feed" && n.template === "payin.health"), all.filter((n) => !(n.channel === "feed" && n.template === "payin.health"))]
    if (feed.length) await createOnce(module, feed)
    const failed: string[] = []
    for (const email of emails) {
      await createOnce(module, [email]).catch((error: unknown) => failed.push(`${email.to}: ${errorMessage(error)}`))
    }
    return failed.length ? `e-mail not sent to ${failed.join("; ")}` : null
  }
}

// A concurrent twin hits the module's unique idempotency key: it went out.
async function createOnce(module: INotificationModuleService, notifications: CreateNotificationDTO[]): Promise<void> {
  try {
    await module.createNotifications(notifications)
  } catch (error) {
    if (/idempotency_key|already exists|duplicate key/i.test(errorMessage(error))) return
    throw error
  }
}

/** Every server and worker checks the health on a timer; the state rows make one alert per incident. */
export class HealthMonitor {
  private timer_: NodeJS.Timeout | null = null
  private stopped_ = true

  constructor(
    private readonly health: Health,
    private readonly env: () => HealthEnv,
    private readonly send: (alert: HealthAlert) => Promise<string | null>,
    private readonly interval: () => Promise<number>,
    private readonly logger: () => Logger | undefined
  ) {}

  start(): void {
    if (!this.stopped_) return
    this.stopped_ = false
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
      // settings unreadable (the database restarting): try again in a minute
    }
    this.timer_ = setTimeout(() => void this.tick(), seconds * 1000)
    this.timer_.unref?.()
  }

  private async tick(): Promise<void> {
    try {
      const sent = await this.checkNow()
      for (const alert of sent) this.logger()?.warn(`payin health: ${alert.signal.id}${alert.signal.provider_id ? ` (${alert.signal.provider_id})` : ""} ${alert.kind === "failing" ? "is failing" : "recovered"}: ${alert.signal.summary}`)
    } catch (error) {
      if (!this.stopped_) this.logger()?.warn(`payin health: the check failed: ${errorMessage(error)}`)
    } finally {
      await this.schedule()
    }
  }
}
