import { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { PAYIN_MODULE } from "../../../../../medusa-plugin.config"
import { TransactionSchema } from "../../../../client/schemas"
import { SignatureCheck, checkWebhookSignature } from "../../../../client/webhook-signature"
import { receivePayinWebhook } from "../../../../money-path/inbox"
import type PayinModuleService from "../../../../modules/payin/service"
import { payinProviderId } from "../../../../provider-id"

// The service authenticates by signature, not by a Medusa session or key.
export const AUTHENTICATE = false

/**
 * GET /hooks/payin/<id>: tells whether this webhook URL belongs to a configured provider
 * instance (for checking the URL pasted into the merchant panel). No secrets in the answer.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const options = await req.scope.resolve<PayinModuleService>(PAYIN_MODULE).settings.providerOptions(req.params.id)
  if (!options) {
    res.status(404).json({ code: "unknown_provider", message: `No pay-in provider instance "${req.params.id}" in this store` })
    return
  }
  res.status(200).json({ provider_id: payinProviderId(options.id), configured: Boolean(options.apiKey) })
}

/** Largest callback body read (a Transaction is about 1 KB). */
const MAX_BODY_BYTES = 256 * 1024

/**
 * The request's exact bytes (the route has no body parser: the signature is verified over them
 * before anything is parsed). Null when the body is over the limit: the rest is drained unread.
 */
function readRawBody(req: MedusaRequest, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        req.off("data", onData)
        req.resume() // discard the rest
        resolve(null)
        return
      }
      chunks.push(chunk)
    }
    req.on("data", onData)
    req.once("end", () => resolve(Buffer.concat(chunks)))
    req.once("error", reject)
  })
}

const SIGNATURE_ANSWERS: Record<Exclude<SignatureCheck, "ok">, [number, string]> = {
  missing: [400, "The x-signature header is missing"],
  malformed: [400, "The x-signature header is not a 64-character hexadecimal HMAC-SHA256"],
  mismatch: [401, "The x-signature does not match the body"],
}

/**
 * POST /hooks/payin/<id>: status callbacks of the payment service for provider instance <id>.
 * One way through: verify → inbox → apply → answer. The signature is checked over the raw bytes
 * before anything is parsed; refused requests are only counted.
 *
 * | case | answer |
 * |---|---|
 * | unknown instance | 404 |
 * | instance without a usable key (none, or a stored key that cannot be decrypted) | 401 |
 * | missing, non-hex or wrong-length signature; empty body | 400 |
 * | body over 256 KB | 413 |
 * | signature mismatch | 401 |
 * | verified, but not JSON or not a Transaction | 400 |
 * | a pay-in of another merchant account (other key) | 403 |
 * | applied, or a duplicate | 200 |
 * | stored, not applied yet (the retry job applies it), or a Medusa effect still pending | 202 |
 */
export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const instanceId = req.params.id
  const payin = req.scope.resolve<PayinModuleService>(PAYIN_MODULE)
  let options = await payin.settings.providerOptions(instanceId)
  if (!options) {
    res.status(404).json({ code: "unknown_provider", message: `No pay-in provider instance "${instanceId}" in this store` })
    return
  }
  const providerId = payinProviderId(instanceId)
  const refuse = (status: number, code: string, message: string, extra: Record<string, unknown> = {}) => {
    payin.inbox.countRejected(providerId, code)
    res.status(status).json({ code, message, ...extra })
  }
  if (!options.apiKey) {
    // nothing to verify with: the request cannot be authenticated, whatever its headers
    refuse(401, "not_configured", "This pay-in provider has no usable API key to verify webhooks with")
    return
  }
  const raw = await readRawBody(req, MAX_BODY_BYTES)
  if (raw === null) {
    refuse(413, "body_too_large", `The body is over ${MAX_BODY_BYTES / 1024} KB`)
    return
  }
  if (!raw.length) {
    refuse(400, "invalid_body", "Send the Transaction as an application/json body")
    return
  }
  let check = checkWebhookSignature(raw, req.headers["x-signature"], options.apiKey)
  if (check === "mismatch") {
    // The key may have been rotated from the admin on another instance: read the settings again
    // (at most once a second) before refusing.
    const fresh = await payin.settings.providerOptions(instanceId, 1_000)
    if (fresh?.apiKey && fresh.apiKey !== options.apiKey) {
      options = fresh
      check = checkWebhookSignature(raw, req.headers["x-signature"], fresh.apiKey)
    }
  }
  if (check !== "ok") {
    const [status, message] = SIGNATURE_ANSWERS[check]
    refuse(status, `signature_${check}`, message)
    return
  }

  const text = raw.toString("utf8")
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    refuse(400, "invalid_json", "The body is not JSON")
    return
  }
  const parsed = TransactionSchema.safeParse(json)
  if (!parsed.success) {
    refuse(400, "invalid_transaction", "The body is not a Transaction", {
      fields: parsed.error.issues.slice(0, 10).map((i) => ({ path: i.path.join("."), message: i.message })),
    })
    return
  }

  const outcome = await receivePayinWebhook(req.scope, providerId, parsed.data, text)
  switch (outcome.outcome) {
    case "foreign":
      res.status(403).json({ code: "foreign_payin", message: "This transaction belongs to another merchant account" })
      return
    case "queued":
      res.status(202).json({ received: true, applied: false, message: "Stored; it will be applied by the retry job" })
      return
    case "duplicate":
      res.status(200).json({ received: true, duplicate: true })
      return
    default: {
      const { outcome: _o, ...result } = outcome
      res.status(result.effectPending ? 202 : 200).json({ received: true, ...result })
    }
  }
}
