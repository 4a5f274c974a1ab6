import { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { PAYIN_MODULE } from "../../../../modules/payin/key"
import { TransactionSchema } from "../../../../client/schemas"
import { SignatureCheck, checkWebhookSignature } from "../../../../client/signature"
import { LATE, WEBHOOK_ANSWER_DEADLINE_MS, WEBHOOK_RETRY_AFTER_SECONDS, beforeDeadline, receivePayinWebhookBefore } from "../../../../money-path/inbox"
import type PayinModuleService from "../../../../modules/payin/service"
import { payinProviderId } from "../../../../provider-id"

// The service authenticates by signature, not by a Medusa session or key.
export const AUTHENTICATE = false

export const WEBHOOK_GET_ANSWER = {
  message: "This is a pay-in webhook endpoint: the payment service sends signed status callbacks here with POST.",
} as const

export async function GET(_req: MedusaRequest, res: MedusaResponse): Promise<void> {
  res.status(200).json(WEBHOOK_GET_ANSWER)
}

const SIGNATURE_ANSWERS: Record<Exclude<SignatureCheck, "ok">, [number, string]> = {
  missing: [400, "The x-signature header is missing"],
  malformed: [400, "The x-signature header is not a 64-character hexadecimal HMAC-SHA256"],
  mismatch: [401, "The x-signature does not match the body"],
}

export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  // Never hangs on the store's own infrastructure (PostgreSQL, Redis): one deadline for the whole answer.
  const deadline = Date.now() + WEBHOOK_ANSWER_DEADLINE_MS
  const later = (code: string, message: string) => {
    res.setHeader("Retry-After", String(WEBHOOK_RETRY_AFTER_SECONDS))
    res.status(503).json({ code, message })
  }
  const notInTime = () => later("apply_timeout", `Not answered within ${WEBHOOK_ANSWER_DEADLINE_MS} ms; send it again later`)
  const instanceId = req.params.id
  const payin = req.scope.resolve<PayinModuleService>(PAYIN_MODULE)
  const configured = await beforeDeadline(payin.settings.providerOptions(instanceId), deadline)
  if (configured === LATE) {
    notInTime()
    return
  }
  let options = configured
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
  const raw = (req as MedusaRequest & { rawBody?: Buffer }).rawBody
  if (!raw || !raw.length) {
    refuse(400, "invalid_body", "Send the Transaction as an application/json body")
    return
  }
  let check = checkWebhookSignature(raw, req.headers["x-signature"], options.apiKey)
  if (check === "mismatch") {
    // The key may have been rotated from the admin on another server: re-read the settings (at most once a second) before refusing.
    const fresh = await beforeDeadline(payin.settings.providerOptions(instanceId, 1_000), deadline)
    if (fresh === LATE) {
      notInTime()
      return
    }
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

  // Medusa's JSON parser already parsed these exact bytes (a body it cannot parse never gets here)
  const parsed = TransactionSchema.safeParse(req.body)
  if (!parsed.success) {
    refuse(400, "invalid_transaction", "The body is not a Transaction", {
      fields: parsed.error.issues.slice(0, 10).map((i) => ({ path: i.path.join("."), message: i.message })),
    })
    return
  }

  const outcome = await receivePayinWebhookBefore(req.scope, providerId, parsed.data, raw.toString("utf8"), deadline)
  switch (outcome.outcome) {
    case "late":
      notInTime()
      return
    case "unavailable":
      later("temporarily_unavailable", "The store cannot record this callback right now; send it again later")
      return
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
