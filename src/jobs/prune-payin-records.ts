import { MedusaContainer } from "@medusajs/framework/types"
import { RETENTION_JOB, RETENTION_SCHEDULE, prunePayinRecordsScheduled } from "../money-path/retention"
import { keepScheduled } from "../money-path/schedule-watchdog"

/**
 * Retention: deletes applied webhook-inbox entries, daily webhook counters and (when set) the
 * status history of ended pay-ins past their windows (plugin options webhookRetentionDays,
 * webhookCounterRetentionDays, historyRetentionDays), in batches. The ledger is never pruned.
 * Runs on `worker` / `shared` processes every ten minutes, once across all of them (a lock).
 */
export default async function prunePayinRecordsJob(container: MedusaContainer): Promise<void> {
  keepScheduled(RETENTION_JOB, container, prunePayinRecordsScheduled, async () => 600)
  await prunePayinRecordsScheduled(container)
}

export const config = {
  name: RETENTION_JOB,
  schedule: RETENTION_SCHEDULE,
}
