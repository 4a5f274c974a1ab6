import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { payinProviderId } from "../../../../provider-id"
import { jobOverdue } from "../../../../modules/payin/job-runs/job-runs"
import { RETENTION_JOB } from "../../../../money-path/retention"
import { RECONCILE_JOB } from "../../../../money-path/reconcile"
import { webhookBaseUrl, webhookUrl } from "../../../../modules/payin/webhook-url"
import { payinModule } from "../../../utils"

export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const payin = payinModule(req)
  const providers = await Promise.all(
    payin.settings.instanceIds().map(async (id) => {
      const providerId = payinProviderId(id)
      const health = await payin.inbox.deliveries(providerId)
      return {
        id,
        provider_id: providerId,
        webhook_url: webhookUrl(webhookBaseUrl(req), id),
        ...health,
        last_delivery_at: health.last_delivery_at ? new Date(health.last_delivery_at).toISOString() : null,
        last_failure_at: health.last_failure_at ? new Date(health.last_failure_at).toISOString() : null,
      }
    })
  )
  const [run, retention, plugin] = await Promise.all([
    payin.jobs.last(RECONCILE_JOB),
    payin.jobs.last(RETENTION_JOB),
    payin.settings.plugin(),
  ])
  res.json({
    providers,
    reconciliation: {
      last_run_at: run ? new Date(run.last_run_at).toISOString() : null,
      last_report: run?.last_report ?? null,
      runs: run?.runs ?? 0,
      interval_seconds: plugin.reconcileIntervalSeconds,
      overdue: jobOverdue(run, plugin.reconcileIntervalSeconds),
    },
    retention: {
      webhook_retention_days: plugin.webhookRetentionDays,
      webhook_counter_retention_days: plugin.webhookCounterRetentionDays,
      history_retention_days: plugin.historyRetentionDays,
      last_run_at: retention ? new Date(retention.last_run_at).toISOString() : null,
      last_report: retention?.last_report ?? null,
      runs: retention?.runs ?? 0,
    },
  })
}
