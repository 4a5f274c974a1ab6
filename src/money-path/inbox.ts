import { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../../medusa-plugin.config"
import { errorMessage } from "../client/errors"
import { Transaction, TransactionSchema } from "../client/schemas"
import { ForeignPayinError } from "../modules/payin/ledger"
import type PayinModuleService from "../modules/payin/service"
import { instanceIdOf } from "../provider-id"
import { ApplyPayinEventResult, applyPayinEvent } from "./apply"

export type InboxOutcome =
  | ({ outcome: "applied" } & ApplyPayinEventResult)
  | { outcome: "duplicate" }
  | { outcome: "queued"; error: string }
  | { outcome: "foreign"; error: string }

/**
 * A verified callback: stored in the inbox first, then applied through the one apply function. A
 * duplicate of an applied callback changes nothing. A failure to apply leaves the entry for the
 * retry job; a pay-in of another merchant account is refused for good.
 */
export async function receivePayinWebhook(
  container: MedusaContainer,
  providerId: string,
  transaction: Transaction,
  rawBody: string
): Promise<InboxOutcome> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const entry = await payin.inbox.receive(providerId, transaction, rawBody)
  if (!entry.inserted && (entry.state === "applied" || entry.state === "rejected")) {
    return entry.state === "applied" ? { outcome: "duplicate" } : { outcome: "foreign", error: "refused before" }
  }
  return applyInboxEntry(container, entry.id, providerId, transaction)
}

export async function applyInboxEntry(
  container: MedusaContainer,
  entryId: string,
  providerId: string,
  transaction: Transaction
): Promise<InboxOutcome> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  try {
    const result = await applyPayinEvent(container, { instanceId: instanceIdOf(providerId)!, transaction, source: "webhook" })
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

/** Retries inbox entries that failed to apply or were left behind by a crash. Returns how many were applied. */
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
    const outcome = await applyInboxEntry(container, entry.id, entry.provider_id, parsed.data)
    if (outcome.outcome === "applied") {
      applied++
    }
  }
  return { tried: due.length, applied }
}
