import { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../modules/payin/key"
import type { Transaction } from "../client/schemas"
import { ServiceIdMismatchError } from "../modules/payin/ledger/errors"
import { ledgerHasSeen } from "../modules/payin/ledger/rows"
import type PayinModuleService from "../modules/payin/service"
import type { LedgerRow, StatusSource } from "../modules/payin/service"
import { payinProviderId } from "../provider-id"
import { isDisputeStatus } from "../status"
import { type PayinSpan, SPANS, traced } from "../telemetry"
import { followInMedusa } from "./effects"
import { payinLockOptions, withLock } from "./lock"

export type EffectRun = "due" | "now" | "new"

export function effectRunOf(source: StatusSource): EffectRun {
  return source === "admin" ? "now" : source === "store" ? "new" : "due"
}

export type ApplyPayinEventInput = {
  instanceId: string
  /** Verified and parsed. */
  transaction: Transaction
  source: StatusSource
  effectRun?: EffectRun
  /** When the webhook that brought it came in (ms): a capture it leads to is timed from then. */
  receivedAt?: number
}

export type ApplyPayinEventResult = {
  ledgerId: string
  status: string
  changed: boolean
  /** e.g. "captured", "order_canceled", "flagged:late_payment" */
  effects: string[]
  effectPending: boolean
}

export function applyPayinEvent(container: MedusaContainer, input: ApplyPayinEventInput): Promise<ApplyPayinEventResult> {
  return traced(SPANS.apply, { "payin.source": input.source }, (span) => apply(container, input, span))
}

/** Loops when another service transaction claimed the row meanwhile (two pay-ins racing for one session). */
async function apply(container: MedusaContainer, input: ApplyPayinEventInput, span: PayinSpan): Promise<ApplyPayinEventResult> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const accounts = new Set((await payin.settings.sameAccount(input.instanceId)).map(payinProviderId))
  accounts.add(payinProviderId(input.instanceId))
  const accepts = (row: LedgerRow) => accounts.has(row.provider_id)
  const effectRun = input.effectRun ?? effectRunOf(input.source)
  const { lockTtlSeconds } = await payin.settings.plugin()
  const transaction = input.transaction
  for (let attempt = 1; ; attempt++) {
    const row = await findOrCreateRow(payin, input.instanceId, transaction, accepts)
    await payin.faultPoints("record", transaction.id)
    try {
      return await withLock(
        container,
        `payin:${row.id}`,
        async (hold) => {
          const tx = input.source === "webhook" ? await unlessOldDispute(payin, input.instanceId, row, transaction) : transaction
          // the row as read (one statement when nothing wrote it since): its move, history and the effect's claim
          const { row: current, transition, claimed } = await payin.ledger.recordSeenStatus(row, tx, input.source, accepts)
          // `new` (the store's status poll, anyone may call it): never a retry, those are reconciliation's
          const run = effectRun !== "new" || (transition.changed && !Number(current.effect_attempts))
          const outcome = run
            ? await followInMedusa(container, payin, current, { force: effectRun === "now", hold, source: input.source, receivedAt: input.receivedAt, claimed })
            : { effects: [], pending: Boolean(current.effect_pending) }
          span.set({
            "payin.id": current.id,
            "payin.status.from": transition.from,
            "payin.status.to": transition.to,
            "payin.status.changed": transition.changed,
            "payin.effect_pending": outcome.pending,
          })
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
      if (error instanceof ServiceIdMismatchError && attempt < 3) continue
      throw error
    }
  }
}

/**
 * Maybe an old dispute callback delivered after the close: the service's state wins, but only when the
 * ledger has already seen it. A dispute that came after what the ledger saw (recalculated and closed
 * again since) is applied as it came: replaced, the dispute and its new amount would never be recorded.
 * Checked on the row as it is under the pay-in's lock: a close booked while this callback waited for
 * the lock made it old news (soak seed 1, sixth 30-minute run: dispute_after_payment on an unpaid dispute).
 */
async function unlessOldDispute(payin: PayinModuleService, instanceId: string, read: LedgerRow, tx: Transaction): Promise<Transaction> {
  if (!isDisputeStatus(tx.status)) return tx
  const row = (await payin.ledger.get(read.id)) ?? read
  if (!movesBackFromPaid(row, tx)) return tx
  const current = await payin.clients.withClient(instanceId, (service) => service.lookUp({ id: tx.id }))
  return current && !isDisputeStatus(current.status) && ledgerHasSeen(row, current) ? current : tx
}

export function movesBackFromPaid(row: Pick<LedgerRow, "status" | "paid_at">, tx: Pick<Transaction, "status">): boolean {
  return (row.status === "closed" || Boolean(row.paid_at)) && tx.status !== "closed" && isDisputeStatus(tx.status)
}

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
  // unknown to the store: kept, flagged; a second pay-in for a session gets a row of its own
  const why = sessionPayin
    ? {
        reason: `the session's pay-in ${sessionPayin.id} is service transaction ${sessionPayin.service_id}, not this one`,
        session_payin_id: sessionPayin.id,
      }
    : {}
  return payin.ledger.createUnknown(payinProviderId(instanceId), tx, why)
}

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
