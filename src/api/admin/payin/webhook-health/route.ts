import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { payinProviderId } from "../../../../../medusa-plugin.config"
import { payinModule, publicBaseUrl } from "../helpers"

/** GET /admin/payin/webhook-health: per instance, deliveries accepted, duplicated, refused and failing. */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const payin = payinModule(req)
  const providers = await Promise.all(
    payin.settings.instanceIds().map(async (id) => {
      const providerId = payinProviderId(id)
      const health = await payin.inbox.health(providerId)
      return {
        id,
        provider_id: providerId,
        webhook_url: `${publicBaseUrl(req)}/hooks/payin/${id}`,
        ...health,
        last_delivery_at: health.last_delivery_at ? new Date(health.last_delivery_at).toISOString() : null,
        last_failure_at: health.last_failure_at ? new Date(health.last_failure_at).toISOString() : null,
      }
    })
  )
  res.json({ providers })
}
