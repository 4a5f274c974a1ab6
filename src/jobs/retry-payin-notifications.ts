import { MedusaContainer } from "@medusajs/framework/types"
import { NOTIFICATION_RETRY_JOB, NOTIFICATION_RETRY_SCHEDULE, retryDueNotificationsScheduled } from "../notifications/retry"
import { keepScheduled } from "../money-path/schedule-watchdog"

/**
 * Shopper notifications that failed to send, or were decided and never went out (a crash), are
 * sent again with backoff (1 min doubling, at most hourly) and a limit (8 attempts); one that
 * succeeded is never sent again. Every minute on `worker` / `shared` processes, once across them.
 */
export default async function retryPayinNotificationsJob(container: MedusaContainer): Promise<void> {
  keepScheduled(NOTIFICATION_RETRY_JOB, container, retryDueNotificationsScheduled, async () => 60)
  await retryDueNotificationsScheduled(container)
}

export const config = {
  name: NOTIFICATION_RETRY_JOB,
  schedule: NOTIFICATION_RETRY_SCHEDULE,
}
