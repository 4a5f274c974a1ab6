import { MedusaContainer } from "@medusajs/framework/types"
import { reconcilePayinsScheduled } from "../money-path/reconcile"

/**
 * Looks up unfinished pay-ins and retries unapplied webhooks. Runs every minute; the work itself
 * happens at most once per `reconcileIntervalSeconds` across all instances.
 */
export default async function reconcilePayinsJob(container: MedusaContainer): Promise<void> {
  await reconcilePayinsScheduled(container)
}

export const config = {
  name: "payin-reconcile",
  schedule: "* * * * *",
}
