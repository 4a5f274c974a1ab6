// The health signals of the admin API (GET /admin/payin/health): the plugin's own checks of its
// webhooks, the service, the money path, the jobs and the configuration.
import { useQuery } from "@tanstack/react-query"
import type { HealthState, SignalGroup } from "../../modules/payin/health/signal-ids"
import { adminFetch } from "./api"

export type { HealthState, SignalGroup }

export type HealthSignal = {
  /** A known signal id (SIGNAL_GROUPS), or one this admin does not know yet. */
  id: string
  group: SignalGroup | string
  /** null: the whole plugin (jobs_overdue). */
  provider_id: string | null
  state: HealthState
  /** When it entered this state. */
  since: string | null
  /** The signal's numbers (keys per signal: see the contract). */
  figure: Record<string, unknown> | null
  /** English: what is wrong. Shown only for a signal this admin has no text of its own for. */
  summary: string
  /** English: what fixes it (same). */
  action: string
  /** An admin-relative path ("/payin?flag=capture_failed", "/settings/payin#payin-section-connection"). */
  link: string | null
  alerts: boolean
  alerted_at: string | null
}

export type Health = {
  checked_at: string
  state: HealthState
  check_interval_seconds: number
  alerts: { enabled: boolean; email_recipients: number; min_interval_minutes: number }
  signals: HealthSignal[]
}

const keys = {
  health: ["payin", "health"] as const,
}

/** The plugin's health, refetched every 30 s. */
export function useHealth() {
  return useQuery({
    queryKey: keys.health,
    queryFn: () => adminFetch<Health>("/admin/payin/health"),
    refetchInterval: 30_000,
  })
}
