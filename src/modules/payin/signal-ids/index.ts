// The health signals' vocabulary (no imports: the settings' options, the health check, the admin and the tests read it).

export const SIGNAL_GROUPS = {
  webhooks: ["webhooks_missing", "webhook_rejections", "webhooks_backlog"],
  service: ["service_key", "service_ip", "service_errors", "requisites_unavailable"],
  money: ["effects_failing", "paid_not_captured", "stray_payments"],
  worker: ["jobs_overdue"],
  configuration: ["sandbox_in_production", "webhook_url", "encryption_key", "api_key_age"],
} as const

export type SignalGroup = keyof typeof SIGNAL_GROUPS
export type SignalId = (typeof SIGNAL_GROUPS)[SignalGroup][number]

export const SIGNAL_IDS = Object.values(SIGNAL_GROUPS).flat() as SignalId[]

/** Signals that never fail (they need a decision, not a repair), so never alert. */
export const WARNING_ONLY_SIGNALS = ["stray_payments", "webhook_url", "encryption_key", "api_key_age"] as const

/** Every signal that can fail (a unit test holds it to SIGNAL_IDS minus WARNING_ONLY_SIGNALS). */
export const ALERTABLE_SIGNALS = [
  "webhooks_missing",
  "webhook_rejections",
  "webhooks_backlog",
  "service_key",
  "service_ip",
  "service_errors",
  "requisites_unavailable",
  "effects_failing",
  "paid_not_captured",
  "jobs_overdue",
  "sandbox_in_production",
] as const satisfies readonly SignalId[]
export type AlertableSignal = (typeof ALERTABLE_SIGNALS)[number]

/** Signals about the whole plugin rather than one provider instance. */
export const PLUGIN_SIGNALS: readonly SignalId[] = ["jobs_overdue"]

/** Service-call outcomes that count as errors in `service_errors` (the service answered nothing usable). */
export const ERROR_OUTCOMES: readonly string[] = ["timeout", "server_error", "throttled", "network", "malformed_answer", "answer_too_large", "other"]

export const HEALTH_STATES = ["ok", "warning", "failing"] as const
export type HealthState = (typeof HEALTH_STATES)[number]

export function groupOf(id: SignalId): SignalGroup {
  return (Object.keys(SIGNAL_GROUPS) as SignalGroup[]).find((g) => (SIGNAL_GROUPS[g] as readonly string[]).includes(id))!
}

export function worstOf(states: readonly HealthState[]): HealthState {
  return states.includes("failing") ? "failing" : states.includes("warning") ? "warning" : "ok"
}
