// Record, then send: a check writes the alert it makes due into its state row (pending_alerts) in
// the transaction that moves the row; delivery happens afterwards, outside any transaction or lock.
// The idempotency key comes from the stored incident, so a retry in any process, after any crash,
// repeats it and Medusa's Notification Module sends it once.
import type { Db } from "../db"
import type { Signal } from "./signals"
import type { AlertDue, AlertKind } from "./state"

export type HealthAlert = { kind: AlertKind; signal: Signal; since: Date; incidentAt: Date; idempotencyKey: string }

/** What became of one alert: `error` says what did not go out; `retry` when trying again can help. */
export type SendOutcome = { error: string | null; retry: boolean }
export type AlertSender = (alert: HealthAlert) => Promise<SendOutcome>

/** An alert as stored in its row until delivered (its signal as it was when it became due). */
export type PendingAlert = { key: string; kind: AlertKind; incident_at: string; since: string; signal: Signal }

/** Tries per alert (one per check) before its error is kept and it is dropped. */
export const ALERT_SEND_ATTEMPTS = 5

export function alertKey(scope: string, signalId: string, incidentAt: Date, kind: AlertKind): string {
  return `payin:health:${scope}:${signalId}:${+incidentAt}:${kind}`
}

export function pendingAlert(scope: string, signal: Signal, due: AlertDue, now: Date): PendingAlert {
  const incidentAt = new Date(due.incidentAt)
  return {
    key: alertKey(scope, signal.id, incidentAt, due.kind),
    kind: due.kind,
    incident_at: incidentAt.toISOString(),
    since: (due.kind === "failing" ? incidentAt : now).toISOString(),
    signal,
  }
}

const toAlert = (p: PendingAlert): HealthAlert => ({
  kind: p.kind,
  signal: p.signal,
  since: new Date(p.since),
  incidentAt: new Date(p.incident_at),
  idempotencyKey: p.key,
})

/**
 * A process leases a row's pending alerts (for twice the check interval, 10 s to 2 min) so two
 * processes do not send at once; a lease left by a killed process expires and another process
 * sends them again under the same keys.
 */
export class AlertDelivery {
  constructor(
    private readonly db: () => Db,
    private readonly faultPoint: (key: string) => Promise<void> = async () => undefined
  ) {}

  async deliver(send: AlertSender, checkIntervalSeconds: number): Promise<HealthAlert[]> {
    const leaseSeconds = Math.min(120, Math.max(10, 2 * checkIntervalSeconds))
    const leased = await this.db().raw(
      `update payin_health_state set alert_lease_until = date_trunc('milliseconds', clock_timestamp() + make_interval(secs => ?)), alert_attempts = alert_attempts + 1
       where pending_alerts <> '[]'::jsonb and deleted_at is null and (alert_lease_until is null or alert_lease_until < clock_timestamp())
       returning scope, signal, pending_alerts, alert_attempts, alert_lease_until`,
      [leaseSeconds]
    )
    const sent: HealthAlert[] = []
    for (const row of leased.rows as { scope: string; signal: string; pending_alerts: PendingAlert[]; alert_attempts: number; alert_lease_until: Date }[]) {
      const done: string[] = []
      const errors: string[] = []
      for (const pending of row.pending_alerts) {
        const alert = toAlert(pending)
        let outcome: SendOutcome
        try {
          outcome = await send(alert)
        } catch (error) {
          outcome = { error: error instanceof Error ? error.message : String(error), retry: true }
        }
        await this.faultPoint(pending.key)
        if (outcome.error) errors.push(`${pending.kind} alert: ${outcome.error}`)
        // an error that trying again cannot mend (no provider for a channel) is kept once, not retried
        if (!outcome.retry || row.alert_attempts >= ALERT_SEND_ATTEMPTS) done.push(pending.key)
        if (!outcome.error || !outcome.retry) sent.push(alert)
      }
      const error = errors.length ? errors.join("; ") : null
      // remove only what this run settled (a check may have added an alert meanwhile), fenced by the lease (whole milliseconds: a Date holds no more)
      await this.db().raw(
        `update payin_health_state set
           pending_alerts = (select coalesce(jsonb_agg(e), '[]'::jsonb) from jsonb_array_elements(pending_alerts) e where not (e->>'key' = any(?::text[]))),
           alert_lease_until = null, last_alert_error = ?, updated_at = now(),
           alert_attempts = case when ? then 0 else alert_attempts end
         where scope = ? and signal = ? and deleted_at is null and alert_lease_until = ?`,
        [done, error, done.length === row.pending_alerts.length, row.scope, row.signal, row.alert_lease_until]
      )
    }
    return sent
  }
}
