import { MedusaContainer } from "@medusajs/framework/types"
import { RETENTION_JOB, RETENTION_SCHEDULE, prunePayinRecordsScheduled } from "../money-path/retention"
import { keepScheduled } from "../money-path/schedule-watchdog"
import { RETENTION_INTERVAL_SECONDS } from "../modules/payin/job-runs/job-runs"

export default async function prunePayinRecordsJob(container: MedusaContainer): Promise<void> {
  keepScheduled(RETENTION_JOB, container, prunePayinRecordsScheduled, async () => RETENTION_INTERVAL_SECONDS)
  await prunePayinRecordsScheduled(container)
}

export const config = {
  name: RETENTION_JOB,
  schedule: RETENTION_SCHEDULE,
}
