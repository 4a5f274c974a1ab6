import { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../modules/payin/key"
import type { Transaction } from "../client/schemas"
import { ServiceIdMismatchError } from "../modules/payin/ledger/errors"
import type PayinModuleService from "../modules/payin/service"
import type { LedgerRow, StatusSource } from "../modules/payin/service"
import { payinProviderId } from "../provider-id"
import { isDisputeStatus } from "../status"
import { followInMedusa } from "./effects"
import { payinLockOptions, withLock } from "./lock"

/**
 * When the apply path runs the Medusa effect a pay-in's status asks for:
 * - `due`: when it is due (new, or its backoff after a failure passed): webhooks, the job's lookups;
 * - `now`: whatever the backoff: the admin's "Reconcile now";
 * - `new`: only the effect this very status change asked for (never a retry): the store's status
 *   poll, which anyone can call as often as they like. Retries are reconciliation's.
 */
export type EffectRun = "due" | "now" | "new"

/** The effect run of each source of a status (what a caller that does not say gets). */
export function effectRunOf(source: StatusSource): EffectRun {
  return source === "admin" ? "now" : source === "store" ? "new" : "due"
}

export type ApplyPayinEventInput = {
  /** The provider instance the status came through (`default` for pp_payin_default). */
  instanceId: string
  /** The Transaction as the service sent or returned it, already verified and parsed. */
  transaction: Transaction
  source: StatusSource
  /** When to run the Medusa effect (default: effectRunOf(source)). */
  effectRun?: EffectRun
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
 * the status on the ledger (the one writer: transition table, history, flags and the pending
 * effect in one commit, its events after it), then makes Medusa follow (effects.ts). It calls the service
 * only for a callback that would move a paid pay-in back out of `closed` (movesBackFromPaid): that
 * may be an old callback delivered late, so the service's current state is applied instead.
 *
 * Instances are accounts: a status that came through instance A may only touch a pay-in of A or
 * of an instance configured with the same key and base URL; anything else is a ForeignPayinError
 * and changes nothing. A row claimed by another service transaction between finding it and
 * locking it (two pay-ins racing for one session) is found again, as the same status applied
 * after the other would be: at once, never a retry.
 */
export async function applyPayinEvent(container: MedusaContainer, input: ApplyPayinEventInput): Promise<ApplyPayinEventResult> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const accounts = new Set((await payin.settings.sameAccount(input.instanceId)).map(payinProviderId))
  accounts.add(payinProviderId(input.instanceId))
  const accepts = (row: LedgerRow) => accounts.has(row.provider_id)
  const effectRun = input.effectRun ?? effectRunOf(input.source)
  const { lockTtlSeconds } = await payin.settings.plugin()
  let transaction = input.transaction
  for (let attempt = 1; ; attempt++) {
    const row = await findOrCreateRow(payin, input.instanceId, transaction, accepts)
    if (input.source === "webhook" && movesBackFromPaid(row, transaction)) {
      // a callback that would take a paid pay-in back out of `closed` may be an old one delivered
      // late (a dispute from before the close): the service is asked. Still in a dispute there:
      // the callback is applied as sent (each step of a real dispute after payment is recorded);
      // otherwise the service's current state is applied instead. The service unreachable: thrown,
      // so the inbox retries the callback later.
      const current = await payin.settings.withClient(input.instanceId, (service) => service.lookUp({ id: transaction.id }))
      if (current && !isDisputeStatus(current.status)) transaction = current
    }
    await payin.faultPoints("record", transaction.id)
    try {
      return await withLock(
        container,
        `payin:${row.id}`,
        async (hold) => {
          const { row: current, transition } = await payin.ledger.recordStatus(row.id, transaction, input.source, accepts)
          // `new`: only an effect this change asked for, never attempted (a retry is reconciliation's)
          const run = effectRun !== "new" || (transition.changed && !Number(current.effect_attempts))
          const outcome = run
            ? await followInMedusa(container, payin, current, { force: effectRun === "now", hold })
            : { effects: [], pending: Boolean(current.effect_pending) }
          return {
            ledgerId: current.id,
            status: current.status,
            changed: transition.changed,
            effects: outcome.effects,
            effectPending: outcome.pending,
          }
        },
        payinLockOptions(lockTtlSeconds)
      )
    } catch (error) {
      // each round finds the row again: the taken one is skipped (it holds another service id)
      if (error instanceof ServiceIdMismatchError && attempt < 3) continue
      throw error
    }
  }
}

/** A callback that would take a paid pay-in out of `closed` (into a dispute status). */
export function movesBackFromPaid(row: Pick<LedgerRow, "status" | "paid_at">, tx: Pick<Transaction, "status">): boolean {
  return (row.status === "closed" || Boolean(row.paid_at)) && tx.status !== "closed" && isDisputeStatus(tx.status)
}

/** The ledger row a status is about: by service id, else by the session it was created for, else a new flagged row. */
async function findOrCreateRow(
  payin: PayinModuleService,
  instanceId: string,
  tx: Transaction,
  accepts: (row: LedgerRow) => boolean
): Promise<LedgerRow> {
  // service ids are unique per merchant account, not across accounts: this account's row first
  const byService = await payin.ledger.withServiceId(tx.id)
  const own = byService.find(accepts)
  if (own) {
    return own
  }
  const externalId = tx.extra?.externalTransactionId
  let sessionPayin: LedgerRow | null = null
  if (externalId) {
    const bySession = await payin.ledger.findBy("session_id", externalId)
    if (bySession && !accepts(bySession) && (bySession.service_id === tx.id || !bySession.service_id)) {
      return bySession // another account's pay-in named by its own session: record() refuses it (foreign_payin)
    }
    if (bySession && accepts(bySession) && !bySession.service_id) {
      return bySession
    }
    sessionPayin = bySession && accepts(bySession) ? bySession : null
  } else if (byService.length) {
    return byService[0] // only another account holds this id and nothing names this account's session: refused
  }
  // A pay-in the store did not create (or whose row is gone): kept, flagged, so it is not lost.
  // Another pay-in for one of the store's sessions gets its own row: the session's keeps its own.
  const why = sessionPayin
    ? {
        reason: `the session's pay-in ${sessionPayin.id} is service transaction ${sessionPayin.service_id}, not this one`,
        session_payin_id: sessionPayin.id,
      }
    : {}
  return payin.ledger.createUnknown(payinProviderId(instanceId), tx, why)
}

/**
 * Retries the Medusa effect a pay-in's status still asks for (no lookup: the ledger knows the
 * status), when it is due; `force` runs it whatever its backoff.
 */
export async function applyPendingEffect(
  container: MedusaContainer,
  ledgerId: string,
  { force = false }: { force?: boolean } = {}
): Promise<{ effects: string[]; pending: boolean }> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const { lockTtlSeconds } = await payin.settings.plugin()
  return withLock(
    container,
    `payin:${ledgerId}`,
    async (hold) => {
      const row = await payin.ledger.get(ledgerId)
      return row ? followInMedusa(container, payin, row, { force, hold }) : { effects: [], pending: false }
    },
    payinLockOptions(lockTtlSeconds)
  )
}
