import { MedusaContainer } from "@medusajs/framework/types"
import { RECONCILE_TICK_SECONDS } from "../modules/payin/settings/options"
import { RECONCILE_JOB, reconcilePayinsScheduled } from "../money-path/reconcile"
import { keepScheduled } from "../money-path/schedule-watchdog"

/**
 * Looks up unfinished pay-ins, retries pending Medusa effects and unapplied webhooks. Medusa runs
 * scheduled jobs on `worker` and `shared` processes only (one run per tick across workers with
 * the Redis workflow engine). It ticks every 5 s so that any accepted interval is kept (to the
 * next tick); a lock held for the interval makes the work happen once per interval across all
 * processes, whatever the workflow engine.
 */
export default async function reconcilePayinsJob(container: MedusaContainer): Promise<void> {
  keepScheduled(RECONCILE_JOB, container, reconcilePayinsScheduled, async (payin) => (await payin.settings.plugin()).reconcileIntervalSeconds)
  await reconcilePayinsScheduled(container)
}

export const config = {
  name: RECONCILE_JOB,
  schedule: `*/${RECONCILE_TICK_SECONDS} * * * * *`,
}
