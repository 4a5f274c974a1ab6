import { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { PAYIN_MODULE } from "../../../../modules/payin/key"
import { TransactionSchema } from "../../../../client/schemas"
import { SignatureCheck, checkWebhookSignature } from "../../../../client/signature"
import { LATE, WEBHOOK_ANSWER_DEADLINE_MS, WEBHOOK_RETRY_AFTER_SECONDS, beforeDeadline, receivePayinWebhookBefore } from "../../../../money-path/inbox"
import type PayinModuleService from "../../../../modules/payin/service"
import type { PayinProviderOptions } from "../../../../modules/payin/settings/options"
import { payinProviderId } from "../../../../provider-id"
import { type PayinSpan, SPANS, type WebhookOutcome, traceWebhook, traced } from "../../../../telemetry"

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
  await traceWebhook(req.params.id, (span) => answer(req, res, span), () => res.statusCode)
}

async function answer(req: MedusaRequest, res: MedusaResponse, span: PayinSpan): Promise<WebhookOutcome> {
  // Never hangs on the store's own infrastructure (PostgreSQL, Redis): one deadline for the whole answer.
  const deadline = Date.now() + WEBHOOK_ANSWER_DEADLINE_MS
  const later = <O extends WebhookOutcome>(outcome: O, code: string, message: string): O => {
    res.setHeader("Retry-After", String(WEBHOOK_RETRY_AFTER_SECONDS))
    res.status(503).json({ code, message })
    return outcome
  }
  const notInTime = () => later("late", "apply_timeout", `Not stored within ${WEBHOOK_ANSWER_DEADLINE_MS} ms; send it again later`)
  const instanceId = req.params.id
  const payin = req.scope.resolve<PayinModuleService>(PAYIN_MODULE)
  const configured = await beforeDeadline(payin.settings.providerOptions(instanceId), deadline)
  if (configured === LATE) {
    return notInTime()
  }
  if (!configured) {
    res.status(404).json({ code: "unknown_provider", message: `No pay-in provider instance "${instanceId}" in this store` })
    return "unknown_provider"
  }
  const providerId = payinProviderId(instanceId)
  const refuse = <O extends WebhookOutcome>(status: number, code: O, message: string, extra: Record<string, unknown> = {}): O => {
    payin.inbox.countRejected(providerId, code)
    res.status(status).json({ code, message, ...extra })
    return code
  }
  if (!configured.apiKey) {
    // nothing to verify with: the request cannot be authenticated, whatever its headers
    return refuse(401, "not_configured", "This pay-in provider has no usable API key to verify webhooks with")
  }
  const raw = (req as MedusaRequest & { rawBody?: Buffer }).rawBody
  if (!raw || !raw.length) {
    return refuse(400, "invalid_body", "Send the Transaction as an application/json body")
  }
  const reread = () => beforeDeadline(payin.settings.providerOptions(instanceId, 1_000), deadline)
  const check = await traced(SPANS.webhookVerify, {}, (verifySpan) => verify(raw, req.headers["x-signature"], configured, reread, verifySpan))
  if (check === LATE) {
    return notInTime()
  }
  if (check !== "ok") {
    const [status, message] = SIGNATURE_ANSWERS[check]
    return refuse(status, `signature_${check}`, message)
  }

  // Medusa's JSON parser already parsed these exact bytes (a body it cannot parse never gets here)
  const parsed = TransactionSchema.safeParse(req.body)
  if (!parsed.success) {
    return refuse(400, "invalid_transaction", "The body is not a Transaction", {
      fields: parsed.error.issues.slice(0, 10).map((i) => ({ path: i.path.join("."), message: i.message })),
    })
  }

  span.set({ "payin.provider_id": providerId })
  const outcome = await receivePayinWebhookBefore(req.scope, providerId, parsed.data, raw.toString("utf8"), deadline)
  switch (outcome.outcome) {
    case "late":
      return notInTime()
    case "unavailable":
      return later("unavailable", "temporarily_unavailable", "The store cannot record this callback right now; send it again later")
    case "foreign":
      res.status(403).json({ code: "foreign_payin", message: "This transaction belongs to another merchant account" })
      return "foreign"
    case "duplicate":
      res.status(200).json({ received: true, duplicate: true })
      return "duplicate"
    default:
      // stored: the worker books it (the inbox keeps it until then)
      res.status(200).json({ received: true, id: outcome.id })
      return "stored"
  }
}

/** The signature, checked against the instance's key; on a mismatch against a key rotated from the admin on another server (settings read again at most once a second). */
async function verify(
  raw: Buffer,
  header: string | string[] | undefined,
  options: PayinProviderOptions,
  reread: () => Promise<PayinProviderOptions | null | typeof LATE>,
  span: PayinSpan
): Promise<SignatureCheck | typeof LATE> {
  let check = checkWebhookSignature(raw, header, options.apiKey)
  if (check === "mismatch") {
    const fresh = await reread()
    span.set({ "payin.webhook.key_reread": true })
    if (fresh === LATE) return LATE
    if (fresh?.apiKey && fresh.apiKey !== options.apiKey) {
      check = checkWebhookSignature(raw, header, fresh.apiKey)
    }
  }
  span.set({ "payin.webhook.signature": check })
  return check
}
