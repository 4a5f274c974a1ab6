// The health signals of the admin API (GET /admin/payin/health): the plugin's own checks of its
// webhooks, the service, the money path, the jobs and the configuration.
import { useQuery } from "@tanstack/react-query"
import type { HealthReport } from "../../modules/payin/health/health"
import type { HealthState, SignalGroup } from "../../modules/payin/signal-ids"
import { adminFetch } from "./api"

export type { HealthState, SignalGroup }

/** The route's answer, as src/modules/payin/health/health.ts types it (one owner of the wire format). */
// widened: the admin words a signal it does not know (from a newer backend) in the API's English
export type HealthSignal = Omit<HealthReport["signals"][number], "id" | "group" | "figure"> & {
  id: string
  group: SignalGroup | string
  figure: Record<string, unknown> | null
}
export type Health = Omit<HealthReport, "signals"> & { signals: HealthSignal[] }

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
