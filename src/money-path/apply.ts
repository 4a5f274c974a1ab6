import { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../../medusa-plugin.config"
import type { Transaction } from "../client/schemas"
import type PayinModuleService from "../modules/payin/service"
import type { LedgerRow, StatusSource } from "../modules/payin/service"
import { payinProviderId } from "../provider-id"
import { followInMedusa } from "./effects"
import { payinLockOptions, withLock } from "./lock"

export type ApplyPayinEventInput = {
  /** The provider instance the status came through (`default` for pp_payin_default). */
  instanceId: string
  /** The Transaction as the service sent or returned it, already verified and parsed. */
  transaction: Transaction
  source: StatusSource
}

export type ApplyPayinEventResult = {
  ledgerId: string
  status: string
  /** The status moved (false for repeats and older states). */
  changed: boolean
  /** What happened in Medusa, e.g. "captured", "order_canceled", "flagged:late_payment". */
  effects: string[]
  /** A Medusa effect the status asks for is still to happen (reconciliation retries it). */
  effectPending: boolean
}

/**
 * The one apply function, fed by the webhook route (through the inbox) and by every lookup
 * (reconciliation, "Reconcile now", the store status route). Under a lock per pay-in it records
 * the status on the ledger (the one writer: transition table, history, flags, events, the
 * pending effect in the same commit), then makes Medusa follow (effects.ts). It never calls the
 * service: the transaction is what the caller already holds.
 *
 * Instances are accounts: a status that came through instance A may only touch a pay-in of A or
 * of an instance configured with the same key and base URL; anything else is a ForeignPayinError
 * and changes nothing.
 */
export async function applyPayinEvent(container: MedusaContainer, input: ApplyPayinEventInput): Promise<ApplyPayinEventResult> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const accounts = new Set((await payin.settings.sameAccount(input.instanceId)).map(payinProviderId))
  accounts.add(payinProviderId(input.instanceId))
  const accepts = (row: LedgerRow) => accounts.has(row.provider_id)
  const row = await findOrCreateRow(payin, input.instanceId, input.transaction, accepts)

  const { lockTtlSeconds } = await payin.settings.plugin()
  return withLock(container, `payin:${row.id}`, async () => {
    const { row: current, transition } = await payin.recordStatus(row.id, input.transaction, input.source, accepts)
    const outcome = await followInMedusa(container, payin, current)
    return {
      ledgerId: current.id,
      status: current.status,
      changed: transition.changed,
      effects: outcome.effects,
      effectPending: outcome.pending,
    }
  }, payinLockOptions(lockTtlSeconds))
}

/** The ledger row a status is about: by service id, else by the session it was created for, else a new flagged row. */
async function findOrCreateRow(
  payin: PayinModuleService,
  instanceId: string,
  tx: Transaction,
  accepts: (row: LedgerRow) => boolean
): Promise<LedgerRow> {
  const byService = await payin.ledger.findBy("service_id", tx.id)
  if (byService) {
    return byService // record() refuses it when it is another account's
  }
  const externalId = tx.extra?.externalTransactionId
  if (externalId) {
    const bySession = await payin.ledger.findBy("session_id", externalId)
    if (bySession && accepts(bySession) && !bySession.service_id) {
      return bySession
    }
  }
  // A pay-in the store did not create (or whose row is gone): kept, flagged, so it is not lost.
  const created = await payin.ledger.createUnknown(payinProviderId(instanceId), tx)
  await payin.emit(created, [{ kind: "flag", flag: "unknown_payin", details: { external_id: externalId ?? null } }])
  return created
}

/** Retries the Medusa effect a pay-in's status still asks for (no lookup: the ledger knows the status). */
export async function applyPendingEffect(container: MedusaContainer, ledgerId: string): Promise<{ effects: string[]; pending: boolean }> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const { lockTtlSeconds } = await payin.settings.plugin()
  return withLock(
    container,
    `payin:${ledgerId}`,
    async () => {
      const row = await payin.ledger.get(ledgerId)
      return row ? followInMedusa(container, payin, row) : { effects: [], pending: false }
    },
    payinLockOptions(lockTtlSeconds)
  )
}
