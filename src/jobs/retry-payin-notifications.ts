import { MedusaContainer } from "@medusajs/framework/types"
import { NOTIFICATION_RETRY_JOB, NOTIFICATION_RETRY_SCHEDULE, retryDueNotificationsScheduled } from "../notifications/retry"
import { keepScheduled } from "../money-path/schedule-watchdog"
import { NOTIFICATION_RETRY_INTERVAL_SECONDS } from "../modules/payin/job-runs/job-runs"

export default async function retryPayinNotificationsJob(container: MedusaContainer): Promise<void> {
  keepScheduled(NOTIFICATION_RETRY_JOB, container, retryDueNotificationsScheduled, async () => NOTIFICATION_RETRY_INTERVAL_SECONDS)
  await retryDueNotificationsScheduled(container)
}

export const config = {
  name: NOTIFICATION_RETRY_JOB,
  schedule: NOTIFICATION_RETRY_SCHEDULE,
}
