import { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../modules/payin/key"
import { errorMessage } from "../client/errors"
import { Transaction, TransactionSchema } from "../client/schemas"
import { ForeignPayinError } from "../modules/payin/ledger/errors"
import type PayinModuleService from "../modules/payin/service"
import { instanceIdOf } from "../provider-id"
import { SPANS, traced } from "../telemetry"
import { ApplyPayinEventResult, applyPayinEvent } from "./apply"

export type InboxOutcome =
  | ({ outcome: "applied" } & ApplyPayinEventResult)
  | { outcome: "duplicate" }
  | { outcome: "queued"; error: string }
  | { outcome: "foreign"; error: string }

// Below a sender's usual 10 s timeout (stuck infrastructure waits far longer: knex 60 s, locking-redis 44 s measured),
// above PAYIN_LOCK_WAIT_MAX_MS so a lock held elsewhere still ends in "queued"
export const WEBHOOK_ANSWER_DEADLINE_MS = 8_000
export const WEBHOOK_RETRY_AFTER_SECONDS = 5

export const LATE: unique symbol = Symbol("late")

export async function beforeDeadline<T>(
  work: Promise<T>,
  deadline: number,
  onLateFailure: (error: unknown) => void = () => undefined
): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined
  let late = false
  const guarded = work.catch((error): typeof LATE => {
    if (late) {
      onLateFailure(error)
      return LATE
    }
    throw error
  })
  const timeout = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => {
      late = true
      resolve(LATE)
    }, Math.max(0, deadline - Date.now()))
  })
  try {
    return await Promise.race<T | typeof LATE>([guarded, timeout])
  } finally {
    clearTimeout(timer)
  }
}

export type DeadlineOutcome = InboxOutcome | { outcome: "late" } | { outcome: "unavailable"; error: string }

export async function receivePayinWebhookBefore(
  container: MedusaContainer,
  providerId: string,
  transaction: Transaction,
  rawBody: string,
  deadline = Date.now() + WEBHOOK_ANSWER_DEADLINE_MS
): Promise<DeadlineOutcome> {
  const logger = container.resolve("logger")
  const what = `webhook ${transaction.id} (${transaction.status}) for ${providerId}`
  let outcome: DeadlineOutcome
  // the route set the deadline when the request came in
  const receivedAt = deadline - WEBHOOK_ANSWER_DEADLINE_MS
  try {
    const result = await beforeDeadline(receivePayinWebhook(container, providerId, transaction, rawBody, receivedAt), deadline, (error) =>
      logger.warn(`payin: ${what} failed after its deadline, will retry: ${errorMessage(error)}`)
    )
    outcome = result === LATE ? { outcome: "late" } : result
  } catch (error) {
    outcome = { outcome: "unavailable", error: errorMessage(error) }
  }
  if (outcome.outcome === "late") {
    logger.warn(`payin: ${what} not applied by its deadline: answered 503, still applying in the background`)
  } else if (outcome.outcome === "unavailable") {
    logger.warn(`payin: ${what} could not be stored or settled, answered 503: ${outcome.error}`)
  }
  return outcome
}

/** `receivedAt`: when the callback came in (ms), the start of its webhook-to-capture time. */
export async function receivePayinWebhook(
  container: MedusaContainer,
  providerId: string,
  transaction: Transaction,
  rawBody: string,
  receivedAt = Date.now()
): Promise<InboxOutcome> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const entry = await traced(SPANS.webhookStore, {}, () => payin.inbox.receive(providerId, transaction, rawBody), (e) => ({ "payin.inbox.new": e.inserted }))
  if (!entry.inserted && (entry.state === "applied" || entry.state === "rejected")) {
    return entry.state === "applied" ? { outcome: "duplicate" } : { outcome: "foreign", error: "refused before" }
  }
  return applyInboxEntry(container, entry.id, providerId, transaction, receivedAt)
}

export async function applyInboxEntry(
  container: MedusaContainer,
  entryId: string,
  providerId: string,
  transaction: Transaction,
  receivedAt?: number
): Promise<InboxOutcome> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  try {
    const result = await applyPayinEvent(container, { instanceId: instanceIdOf(providerId)!, transaction, source: "webhook", receivedAt })
    await payin.inbox.settle(entryId, { ok: true, result })
    return { outcome: "applied", ...result }
  } catch (error) {
    const message = errorMessage(error)
    if (error instanceof ForeignPayinError) {
      await payin.inbox.settle(entryId, { ok: false, error: message, permanent: true, reason: "foreign_payin" })
      return { outcome: "foreign", error: message }
    }
    container
      .resolve("logger")
      .warn(`payin: webhook ${entryId} (${transaction.id} ${transaction.status}) not applied yet, will retry: ${message}`)
    await payin.inbox.settle(entryId, { ok: false, error: message })
    return { outcome: "queued", error: message }
  }
}

export async function retryWebhookInbox(
  container: MedusaContainer,
  batch = 100,
  stuckAfterSeconds = 60
): Promise<{ tried: number; applied: number }> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const due = await payin.inbox.due(batch, stuckAfterSeconds)
  let applied = 0
  for (const entry of due) {
    const parsed = TransactionSchema.safeParse(JSON.parse(entry.raw_body))
    if (!parsed.success) {
      await payin.inbox.settle(entry.id, { ok: false, error: "stored body is not a Transaction", permanent: true, reason: "invalid_transaction" })
      continue
    }
    const outcome = await applyInboxEntry(container, entry.id, entry.provider_id, parsed.data, new Date(entry.created_at).getTime())
    if (outcome.outcome === "applied") {
      applied++
    }
  }
  return { tried: due.length, applied }
}
