// A signal's state over time: since when, and which alerts its incident (a failing stretch) got.
// Pure; health.ts applies it under a row lock, so the one process that moves a row sends its alert.
import type { HealthState } from "../signal-ids"

export type StateRow = {
  state: HealthState
  since: Date
  incident_at: Date | null
  alerted_at: Date | null
  last_alert_at: Date | null
}

export type AlertKind = "failing" | "recovered"
export type AlertDue = { kind: AlertKind; incidentAt: Date }
export type AlertPolicy = { alerts: boolean; minIntervalMs: number }

/**
 * - failing opens an incident (or continues it) and alerts once per incident, when the signal
 *   alerts and its last alert is at least the minimum interval old (else the incident goes unalerted);
 * - leaving failing ends the incident, with a recovery alert only when its failing alert went out.
 */
export function nextState(prev: StateRow | null, observed: HealthState, now: Date, policy: AlertPolicy): { row: StateRow; alert: AlertDue | null } {
  const since = prev && prev.state === observed ? prev.since : now
  if (observed === "failing") {
    const incidentAt = prev?.incident_at ?? now
    const alerted = prev?.incident_at ? prev.alerted_at : null
    const quiet = !prev?.last_alert_at || +now - +prev.last_alert_at >= policy.minIntervalMs
    if (!alerted && policy.alerts && quiet) {
      return { row: { state: observed, since, incident_at: incidentAt, alerted_at: now, last_alert_at: now }, alert: { kind: "failing", incidentAt } }
    }
    return { row: { state: observed, since, incident_at: incidentAt, alerted_at: alerted, last_alert_at: prev?.last_alert_at ?? null }, alert: null }
  }
  const ended = prev?.incident_at && prev.alerted_at ? { kind: "recovered" as const, incidentAt: prev.incident_at } : null
  return { row: { state: observed, since, incident_at: null, alerted_at: null, last_alert_at: prev?.last_alert_at ?? null }, alert: ended }
}
