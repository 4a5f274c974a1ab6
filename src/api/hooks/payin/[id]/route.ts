import { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { PAYIN_MODULE, payinProviderId } from "../../../../../medusa-plugin.config"
import { TransactionSchema } from "../../../../client/schemas"
import { checkWebhookSignature } from "../../../../client/webhook-signature"
import type PayinModuleService from "../../../../modules/payin/service"
import { receivePayinWebhook } from "../../../../workflows/webhook-inbox"

// The service authenticates by signature, not by a Medusa session or key.
export const AUTHENTICATE = false

/**
 * GET /hooks/payin/<id>: tells whether this webhook URL belongs to a configured provider
 * instance (for checking the URL pasted into the merchant panel). No secrets in the answer.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const options = await req.scope.resolve<PayinModuleService>(PAYIN_MODULE).providerOptions(req.params.id)
  if (!options) {
    res.status(404).json({ code: "unknown_provider", message: `No pay-in provider instance "${req.params.id}" in this store` })
    return
  }
  res.status(200).json({ provider_id: payinProviderId(options.id), configured: Boolean(options.apiKey) })
}

/**
 * POST /hooks/payin/<id>: status callbacks of the payment service for provider instance <id>.
 * Verifies the signature over the raw bytes before parsing anything (missing, non-hex or
 * wrong-length signature: 400; mismatch: 401; refused requests are only counted), stores the
 * callback in the durable inbox, then applies it through the one apply-path. 200 once applied or
 * a duplicate; 202 when stored but not applied yet (the retry job applies it).
 */
export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const instanceId = req.params.id
  const ledger = req.scope.resolve<PayinModuleService>(PAYIN_MODULE)
  let options = await ledger.providerOptions(instanceId)
  if (!options) {
    res.status(404).json({ code: "unknown_provider", message: `No pay-in provider instance "${instanceId}" in this store` })
    return
  }
  const providerId = payinProviderId(instanceId)
  if (!options.apiKey) {
    res.status(503).json({ code: "not_configured", message: "This pay-in provider has no API key to verify webhooks with" })
    return
  }
  const refuse = (status: number, code: string, message: string, extra: Record<string, unknown> = {}) => {
    ledger.countRejectedWebhook(providerId, code)
    res.status(status).json({ code, message, ...extra })
  }
  const raw = (req as MedusaRequest & { rawBody?: Buffer }).rawBody
  if (!raw || !raw.length) {
    refuse(400, "invalid_body", "Send the Transaction as an application/json body")
    return
  }
  let check = checkWebhookSignature(raw, req.headers["x-signature"], options.apiKey)
  if (check === "mismatch") {
    // The key may have been rotated from the admin on another instance: read the settings again
    // (at most once a second) before refusing.
    const fresh = await ledger.providerOptions(instanceId, 1_000)
    if (fresh?.apiKey && fresh.apiKey !== options.apiKey) {
      options = fresh
      check = checkWebhookSignature(raw, req.headers["x-signature"], fresh.apiKey)
    }
  }
  if (check !== "ok") {
    const message = {
      missing: "The x-signature header is missing",
      malformed: "The x-signature header is not a 64-character hexadecimal HMAC-SHA256",
      mismatch: "The x-signature does not match the body",
    }[check]
    refuse(check === "mismatch" ? 401 : 400, `signature_${check}`, message)
    return
  }

  const text = raw.toString("utf8")
  // Medusa's JSON parser already parsed these exact bytes (a body it cannot parse never gets here)
  const parsed = TransactionSchema.safeParse(req.body)
  if (!parsed.success) {
    refuse(400, "invalid_transaction", "The body is not a Transaction", {
      fields: parsed.error.issues.slice(0, 10).map((i) => ({ path: i.path.join("."), message: i.message })),
    })
    return
  }

  const outcome = await receivePayinWebhook(req.scope, providerId, parsed.data, text)
  if (outcome.outcome === "queued") {
    res.status(202).json({ received: true, applied: false, message: "Stored; it will be applied by the retry job" })
    return
  }
  if (outcome.outcome === "duplicate") {
    res.status(200).json({ received: true, duplicate: true })
    return
  }
  const { outcome: _o, ...result } = outcome
  res.status(200).json({ received: true, ...result })
}
