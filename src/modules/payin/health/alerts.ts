// What an alert says: the signal's title, what is wrong, since when, how much is affected, what to do.
import type { CreateNotificationDTO } from "@medusajs/framework/types"
import type { HealthAlert } from "./health"
import { instanceIdOf } from "../../../provider-id"
import type { SignalId } from "../signal-ids"

export const FEED_TEMPLATE = "payin.health"
export const EMAIL_TEMPLATES = { failing: "payin.health.failing", recovered: "payin.health.recovered" } as const

const TITLES: Record<SignalId, string> = {
  webhooks_missing: "webhooks are not arriving",
  webhook_rejections: "webhooks are refused",
  webhooks_backlog: "webhooks wait to be booked",
  service_key: "the service refuses the API key",
  service_ip: "the service refuses this store's IP address",
  service_errors: "calls to the payment service fail",
  requisites_unavailable: "checkouts get no payment details",
  effects_failing: "captures or order cancels fail",
  paid_not_captured: "paid pay-ins are not captured",
  stray_payments: "payments arrived for no live order",
  jobs_overdue: "the plugin's jobs do not run",
  sandbox_in_production: "a sandbox address in production",
  webhook_url: "the webhook URL is not reachable",
  encryption_key: "no encryption key",
  api_key_age: "the API key is old",
}

const RECOVERED: Partial<Record<SignalId, string>> = {
  webhooks_missing: "webhooks arrive again",
  webhook_rejections: "webhooks are accepted again",
  webhooks_backlog: "webhooks are booked again",
  service_key: "the service accepts the API key again",
  service_ip: "the service accepts this store's IP address again",
  service_errors: "calls to the payment service succeed again",
  requisites_unavailable: "checkouts get payment details again",
  effects_failing: "captures and order cancels go through again",
  paid_not_captured: "paid pay-ins are captured again",
  jobs_overdue: "the plugin's jobs run again",
  sandbox_in_production: "no sandbox address in production any more",
}

export function alertTitle(alert: Pick<HealthAlert, "kind" | "signal">): string {
  const where = alert.signal.provider_id ? ` (${instanceIdOf(alert.signal.provider_id) ?? alert.signal.provider_id})` : ""
  return alert.kind === "failing" ? `Pay-ins: ${TITLES[alert.signal.id]}${where}` : `Pay-ins: ${RECOVERED[alert.signal.id] ?? `resolved: ${TITLES[alert.signal.id]}`}${where}`
}

export function alertDescription(alert: HealthAlert, now: Date): string {
  if (alert.kind === "recovered") {
    return `Back to ${alert.signal.state} at ${now.toISOString()} (failing since ${alert.incidentAt.toISOString()}). ${alert.signal.summary}.`
  }
  return `${alert.signal.summary}. Failing since ${alert.incidentAt.toISOString()}. What to do: ${alert.signal.action}.`
}

export function alertData(alert: HealthAlert, now: Date): Record<string, unknown> {
  return {
    title: alertTitle(alert),
    description: alertDescription(alert, now),
    signal: alert.signal.id,
    group: alert.signal.group,
    provider_id: alert.signal.provider_id,
    state: alert.kind,
    since: alert.incidentAt.toISOString(),
    figure: alert.signal.figure,
    action: alert.signal.action,
    link: alert.signal.link,
  }
}

/** The feed notification (the admin's bell, every admin) and one e-mail per recipient. */
export function alertNotifications(alert: HealthAlert, options: { feed: boolean; recipients: readonly string[]; channel: string }, now: Date): CreateNotificationDTO[] {
  const data = alertData(alert, now)
  const common = { trigger_type: `payin.health.${alert.kind}`, resource_type: "payin_health", resource_id: `${alert.signal.provider_id ?? "plugin"}:${alert.signal.id}`, data }
  return [
    ...(options.feed ? [{ ...common, to: "", channel: "feed", template: FEED_TEMPLATE, idempotency_key: alert.idempotencyKey }] : []),
    ...options.recipients.map((to) => ({ ...common, to, channel: options.channel, template: EMAIL_TEMPLATES[alert.kind], idempotency_key: `${alert.idempotencyKey}:${to}` })),
  ]
}
