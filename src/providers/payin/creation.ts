import type { InitiatePaymentOutput } from "@medusajs/framework/types"
import { MedusaError } from "@medusajs/framework/utils"
import { PayinServiceError } from "../../client/errors"
import { TransactionSchema } from "../../client/schemas"
import type { LedgerRow } from "../../modules/payin/ledger/types"
import type PayinModuleService from "../../modules/payin/service"
import { sameAmount, sessionAmount } from "../../money"
import type { PayinProviderOptions } from "../../modules/payin/settings/options"
import { payinError } from "./payin-error"
import { toSessionData } from "./session-data"
import {
  CREATION_WINDOW_SECONDS,
  MAX_CREATIONS_PER_COLLECTION,
  type WantedPayin,
  isReusable,
  overCreationCap,
  reusableCandidates,
} from "./session-reuse"
import { CLIENT_CONTEXT_KEY, NO_PROVIDER_KEYS, STOREFRONT_KEYS } from "./storefront-data"

export type CreationContext = {
  payin: PayinModuleService
  instanceId: string
  providerId: string
  logger: { info(message: string): void; warn(message: string): void }
}

function storedSessionData(row: LedgerRow, sessionId: string, options: PayinProviderOptions): Record<string, unknown> {
  const tx = TransactionSchema.parse(row.service_data)
  const expiresAt = row.expires_at instanceof Date ? row.expires_at.toISOString() : new Date(String(row.expires_at)).toISOString()
  return {
    ...NO_PROVIDER_KEYS,
    ...toSessionData(tx, { id: row.id, method: row.method }, options.paymentWindowSeconds),
    payin_status: row.status,
    expires_at: expiresAt,
    session_id: sessionId,
    [CLIENT_CONTEXT_KEY]: undefined,
  }
}

export async function reuseLivePayin(
  ctx: CreationContext,
  sessionId: string,
  siblings: LedgerRow[],
  wanted: WantedPayin,
  options: PayinProviderOptions
): Promise<InitiatePaymentOutput | null> {
  for (const candidate of reusableCandidates(siblings, wanted)) {
    const row = await ctx.payin.ledger.reattachSession(candidate.id, candidate.session_id ?? null, sessionId, (r) => isReusable(r, wanted))
    if (!row?.service_id) continue
    ctx.logger.info(`payin (${ctx.providerId}): payment session ${sessionId} shows pay-in ${row.service_id} again (was ${candidate.session_id})`)
    return { id: row.service_id, status: "pending", data: storedSessionData(row, sessionId, options) }
  }
  return null
}

/**
 * Data carrying the provider's keys of a pay-in of this collection (Medusa re-creating a session it
 * deleted when the workflow that deleted it failed, or a shopper's copy) gets that pay-in back when
 * reuse would show it, and nothing otherwise: never a pay-in nobody asked for, never an ended one.
 */
export async function restoreOwnPayin(
  ctx: CreationContext,
  sessionId: string,
  own: LedgerRow,
  wanted: WantedPayin,
  options: PayinProviderOptions
): Promise<InitiatePaymentOutput> {
  const restored = await reuseLivePayin(ctx, sessionId, [own], wanted, options)
  if (restored) {
    return restored
  }
  ctx.logger.info(`payin (${ctx.providerId}): refused payment session ${sessionId}: it copies the data of pay-in ${own.id}, which cannot be shown again`)
  throw payinError(MedusaError.Types.INVALID_DATA,
    "Payment data copied from an earlier session is accepted only while its pay-in can still be paid as asked. " +
      `Send only: ${STOREFRONT_KEYS.join(", ")}`, "payin_invalid_data")
}

export function takesLatePayment(row: LedgerRow, wanted: WantedPayin & { collectionId: string | null }): boolean {
  return (
    Boolean(row.reattach_requested_at && row.paid_at) &&
    !row.captured_at &&
    row.provider_id === wanted.providerId &&
    Boolean(wanted.collectionId) &&
    row.payment_collection_id === wanted.collectionId &&
    row.currency_code.toLowerCase() === wanted.currencyCode.toLowerCase() &&
    sameAmount(sessionAmount(row), wanted.amount, wanted.currencyCode)
  )
}

/** The session awaits its authorization at once: its order is placed already. */
export async function takeLatePayment(
  ctx: CreationContext,
  sessionId: string,
  siblings: LedgerRow[],
  wanted: WantedPayin & { collectionId: string | null },
  options: PayinProviderOptions
): Promise<InitiatePaymentOutput | null> {
  for (const candidate of siblings.filter((r) => takesLatePayment(r, wanted))) {
    const row = await ctx.payin.ledger.reattachSession(candidate.id, candidate.session_id ?? null, sessionId, (r) => takesLatePayment(r, wanted))
    if (!row?.service_id) continue
    ctx.logger.info(`payin (${ctx.providerId}): payment session ${sessionId} takes the late payment of pay-in ${row.service_id}`)
    return { id: row.service_id, status: "pending_authorization", data: storedSessionData(row, sessionId, options) }
  }
  return null
}

export async function refuseOverCreationCap(ctx: CreationContext, collectionId: string, ledgerId: string | null): Promise<void> {
  const count = await ctx.payin.queries.creationsSince(collectionId, CREATION_WINDOW_SECONDS)
  if (!overCreationCap(count, { including: ledgerId !== null })) {
    return
  }
  const reason = `${count} pay-ins were asked for on payment collection ${collectionId} in the last ${CREATION_WINDOW_SECONDS} s ` +
    `(at most ${MAX_CREATIONS_PER_COLLECTION})`
  ctx.logger.warn(`payin (${ctx.providerId}): refused a new pay-in: ${reason}`)
  if (ledgerId) {
    await ctx.payin.ledger
      .recordCreationFailure(ledgerId, `not sent: ${reason}`)
      .catch((e: unknown) => ctx.logger.warn(`payin: could not record the refusal on ${ledgerId}: ${String(e)}`))
  }
  throw payinError(MedusaError.Types.NOT_ALLOWED,
    "Too many payment attempts for this cart. Please wait a few minutes, then try again.", "payin_too_many_attempts")
}

export async function recordCreationFailure(ctx: CreationContext, ledgerId: string, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error)
  ctx.logger.warn(`payin: creating the pay-in of ledger row ${ledgerId} failed: ${message}`)
  if (error instanceof PayinServiceError && error.ambiguous) {
    // it may exist at the service: the row stays "creating" and reconciliation looks it up by external id
    return
  }
  await ctx.payin.ledger
    .recordCreationFailure(ledgerId, message)
    .catch((e: unknown) => ctx.logger.warn(`payin: could not record the failure on ${ledgerId}: ${String(e)}`))
}

export async function lookUpCreation(ctx: CreationContext, data: Record<string, unknown>, row: LedgerRow | null): Promise<LedgerRow | null> {
  const externalId = row?.session_id ?? (typeof data.session_id === "string" ? data.session_id : null)
  try {
    const transaction = await ctx.payin.clients.withClient(ctx.instanceId, (client) => client.lookUp({ externalId }))
    if (transaction && row) {
      return (await ctx.payin.ledger.recordStatus(row.id, transaction, "authorize", (r) => r.provider_id === ctx.providerId)).row
    }
  } catch (error) {
    ctx.logger.warn(
      `payin: lookup of ${externalId} failed, using the ledger's last known state: ${error instanceof Error ? error.message : String(error)}`
    )
  }
  return row
}
