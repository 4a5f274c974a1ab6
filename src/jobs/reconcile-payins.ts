import { MedusaContainer } from "@medusajs/framework/types"
import { RECONCILE_TICK_SECONDS } from "../modules/payin/settings/options"
import { RECONCILE_JOB, reconcilePayinsScheduled } from "../money-path/reconcile"
import { keepScheduled } from "../money-path/schedule-watchdog"

// Ticks every 5 s so any accepted interval is kept to the next tick; a lock held for the interval makes the work run once per interval across processes.
export default async function reconcilePayinsJob(container: MedusaContainer): Promise<void> {
  keepScheduled(RECONCILE_JOB, container, reconcilePayinsScheduled, async (payin) => (await payin.settings.plugin()).reconcileIntervalSeconds)
  await reconcilePayinsScheduled(container)
}

export const config = {
  name: RECONCILE_JOB,
  schedule: `*/${RECONCILE_TICK_SECONDS} * * * * *`,
}
