import { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { PAYIN_MODULE } from "../../../../../medusa-plugin.config"
import { TransactionSchema } from "../../../../client/schemas"
import { checkWebhookSignature } from "../../../../client/webhook-signature"
import type PayinModuleService from "../../../../modules/payin/service"
import { applyPayinEvent } from "../../../../workflows/apply-payin-event"

// The service authenticates by signature, not by a Medusa session or key.
export const AUTHENTICATE = false

/**
 * POST /hooks/payin/<id>: status callbacks of the payment service for provider instance <id>.
 * Verifies the signature over the raw bytes before parsing anything (missing, non-hex or
 * wrong-length signature: 400; mismatch: 401), then applies the status through the one
 * apply-path. 200 once the status is on the ledger and Medusa followed it; 500 when Medusa could
 * not follow (the ledger keeps the state, so the service's retry completes it).
 */
export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const instanceId = req.params.id
  const ledger = req.scope.resolve<PayinModuleService>(PAYIN_MODULE)
  const options = ledger.getProviderOptions(instanceId)
  if (!options) {
    res.status(404).json({ code: "unknown_provider", message: `No pay-in provider instance "${instanceId}" in this store` })
    return
  }
  if (!options.apiKey) {
    res.status(503).json({ code: "not_configured", message: "This pay-in provider has no API key to verify webhooks with" })
    return
  }
  const raw = (req as MedusaRequest & { rawBody?: Buffer }).rawBody
  if (!raw || !raw.length) {
    res.status(400).json({ code: "invalid_body", message: "Send the Transaction as an application/json body" })
    return
  }
  const check = checkWebhookSignature(raw, req.headers["x-signature"], options.apiKey)
  if (check !== "ok") {
    const status = check === "mismatch" ? 401 : 400
    const message = {
      missing: "The x-signature header is missing",
      malformed: "The x-signature header is not a 64-character hexadecimal HMAC-SHA256",
      mismatch: "The x-signature does not match the body",
    }[check]
    res.status(status).json({ code: `signature_${check}`, message })
    return
  }

  let json: unknown
  try {
    json = JSON.parse(raw.toString("utf8"))
  } catch {
    res.status(400).json({ code: "invalid_json", message: "The body is not JSON" })
    return
  }
  const parsed = TransactionSchema.safeParse(json)
  if (!parsed.success) {
    res.status(400).json({
      code: "invalid_transaction",
      message: "The body is not a Transaction",
      fields: parsed.error.issues.slice(0, 10).map((i) => ({ path: i.path.join("."), message: i.message })),
    })
    return
  }

  try {
    const result = await applyPayinEvent(req.scope, {
      instanceId,
      transaction: parsed.data,
      source: "webhook",
    })
    res.status(200).json({ received: true, ...result })
  } catch (error) {
    req.scope
      .resolve("logger")
      .error(`payin webhook ${instanceId} for ${parsed.data.id}: ${error instanceof Error ? error.message : String(error)}`)
    res.status(500).json({ code: "apply_failed", message: "The status was recorded but could not be applied yet; retry" })
  }
}
