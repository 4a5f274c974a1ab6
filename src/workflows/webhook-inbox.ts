import { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE, PAYIN_PROVIDER_IDENTIFIER } from "../../medusa-plugin.config"
import { errorMessage } from "../client/errors"
import { Transaction, TransactionSchema } from "../client/schemas"
import type PayinModuleService from "../modules/payin/service"
import { ApplyPayinEventResult, applyPayinEvent } from "./apply-payin-event"

export type InboxOutcome =
  | ({ outcome: "applied" } & ApplyPayinEventResult)
  | { outcome: "duplicate" }
  | { outcome: "queued"; error: string }

/** `pp_payin_<id>` → `<id>` */
export function instanceIdOf(providerId: string): string {
  return providerId.replace(new RegExp(`^pp_${PAYIN_PROVIDER_IDENTIFIER}_`), "")
}

/**
 * A verified callback: stored in the inbox first, then applied through the one apply-path. A
 * duplicate of an applied callback changes nothing. A failure to apply leaves the entry for the
 * retry job; the callback is acknowledged either way, because it is safely stored.
 */
export async function receivePayinWebhook(
  container: MedusaContainer,
  providerId: string,
  transaction: Transaction,
  rawBody: string
): Promise<InboxOutcome> {
  const ledger = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const entry = await ledger.receiveWebhook(providerId, transaction, rawBody)
  if (!entry.inserted && entry.state === "applied") {
    return { outcome: "duplicate" }
  }
  return applyInboxEntry(container, entry.id, providerId, transaction)
}

export async function applyInboxEntry(
  container: MedusaContainer,
  entryId: string,
  providerId: string,
  transaction: Transaction
): Promise<InboxOutcome> {
  const ledger = container.resolve<PayinModuleService>(PAYIN_MODULE)
  try {
    const result = await applyPayinEvent(container, {
      instanceId: instanceIdOf(providerId),
      transaction,
      source: "webhook",
    })
    await ledger.settleWebhook(entryId, { ok: true, result })
    return { outcome: "applied", ...result }
  } catch (error) {
    const message = errorMessage(error)
    container
      .resolve("logger")
      .warn(`payin: webhook ${entryId} (${transaction.id} ${transaction.status}) not applied yet, will retry: ${message}`)
    await ledger.settleWebhook(entryId, { ok: false, error: message })
    return { outcome: "queued", error: message }
  }
}

/** Retries inbox entries that failed to apply or were left behind by a crash. Returns how many were applied. */
export async function retryWebhookInbox(
  container: MedusaContainer,
  batch = 100,
  stuckAfterSeconds = 60
): Promise<{ tried: number; applied: number }> {
  const ledger = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const due = await ledger.listWebhooksToRetry(batch, stuckAfterSeconds)
  let applied = 0
  for (const entry of due) {
    const parsed = TransactionSchema.safeParse(JSON.parse(entry.raw_body))
    if (!parsed.success) {
      await ledger.settleWebhook(entry.id, { ok: false, error: "stored body is not a Transaction" })
      continue
    }
    const outcome = await applyInboxEntry(container, entry.id, entry.provider_id, parsed.data)
    if (outcome.outcome === "applied") {
      applied++
    }
  }
  return { tried: due.length, applied }
}
