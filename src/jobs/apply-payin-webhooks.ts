import { MedusaContainer } from "@medusajs/framework/types"
import { applyWebhookInboxScheduled } from "../money-path/inbox"
import { keepScheduled } from "../money-path/schedule-watchdog"
import { WEBHOOK_INBOX_INTERVAL_SECONDS, WEBHOOK_INBOX_JOB } from "../modules/payin/job-runs/job-runs"

// Webhooks are applied when their wake-up event arrives; this picks up whatever an event did not bring.
export default async function applyPayinWebhooksJob(container: MedusaContainer): Promise<void> {
  keepScheduled(WEBHOOK_INBOX_JOB, container, applyWebhookInboxScheduled, async () => WEBHOOK_INBOX_INTERVAL_SECONDS)
  await applyWebhookInboxScheduled(container)
}

export const config = {
  name: WEBHOOK_INBOX_JOB,
  schedule: `*/${WEBHOOK_INBOX_INTERVAL_SECONDS} * * * * *`,
}
