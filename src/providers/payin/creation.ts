import type { InitiatePaymentOutput } from "@medusajs/framework/types"
import { MedusaError } from "@medusajs/framework/utils"
import { PayinServiceError } from "../../client/errors"
import type { Transaction } from "../../client/schemas"
import type { LedgerRow } from "../../modules/payin/ledger/types"
import type PayinModuleService from "../../modules/payin/service"
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
import { CLIENT_CONTEXT_KEY } from "./storefront-data"

/**
 * The ledger's side of creating a pay-in for a session (initiatePayment): a live pay-in shown
 * again, the cap on creations per payment collection, a failed creation recorded, and the lookup
 * of a creation whose outcome is unknown (authorizePayment).
 */

/** What these steps need of the provider instance. */
export type CreationContext = {
  payin: PayinModuleService
  /** The provider instance's id (its options' `id`). */
  instanceId: string
  providerId: string
  logger: { info(message: string): void; warn(message: string): void }
}

/**
 * Re-shows a live pay-in of the collection for the new session `sessionId` (see isReusable),
 * re-attached to it in the ledger so that its payment is captured for this session. Null when
 * there is none (or each one changed under the row lock meanwhile).
 */
export async function reuseLivePayin(
  ctx: CreationContext,
  sessionId: string,
  siblings: LedgerRow[],
  wanted: WantedPayin,
  options: PayinProviderOptions
): Promise<InitiatePaymentOutput | null> {
  for (const candidate of reusableCandidates(siblings, wanted)) {
    const row = await ctx.payin.ledger.reattachSession(candidate.id, candidate.session_id ?? null, sessionId, (r) => isReusable(r, wanted))
    if (!row) continue
    const tx = row.service_data as unknown as Transaction
    const expiresAt = row.expires_at instanceof Date ? row.expires_at.toISOString() : new Date(String(row.expires_at)).toISOString()
    const sessionData = {
      ...toSessionData(tx, { id: row.id, method: row.method }, options.paymentWindowSeconds),
      payin_status: row.status,
      expires_at: expiresAt,
    }
    ctx.logger.info(`payin (${ctx.providerId}): payment session ${sessionId} shows pay-in ${row.service_id} again (was ${candidate.session_id})`)
    return {
      id: row.service_id!,
      status: "pending",
      data: { ...sessionData, session_id: sessionId, [CLIENT_CONTEXT_KEY]: undefined } as Record<string, unknown>,
    }
  }
  return null
}

/**
 * Key of a payment session's `data` asking to re-attach a paid pay-in to the new session instead
 * of creating one: the money path's late capture (effects.ts) of a pay-in whose session Medusa
 * deleted when the shopper asked for new details, while its order still awaits payment.
 */
export const REATTACH_PAID_KEY = "payin_reattach_paid"

/**
 * Re-attaches the paid, not captured pay-in `ledgerId` of the same payment collection to the new
 * session `sessionId` (nothing is asked of the service), so that Medusa authorizes and captures
 * its money on this session. Refused (payin_invalid_data) for any other pay-in: another
 * collection's or provider's, an unpaid or captured one. Whoever asks, only money that arrived
 * for this very collection can be attached to it.
 */
export async function reattachPaidPayin(
  ctx: CreationContext,
  ledgerId: string,
  sessionId: string,
  collectionId: string | null,
  options: PayinProviderOptions
): Promise<InitiatePaymentOutput> {
  const attachable = (r: LedgerRow) =>
    r.provider_id === ctx.providerId && Boolean(r.paid_at) && !r.captured_at && Boolean(collectionId) && r.payment_collection_id === collectionId
  const found = await ctx.payin.ledger.get(ledgerId)
  const row = found && attachable(found) ? await ctx.payin.ledger.reattachSession(found.id, found.session_id ?? null, sessionId, attachable) : null
  if (!row?.service_id) {
    throw payinError(MedusaError.Types.INVALID_DATA, "Only a paid pay-in of this payment collection can be attached to its new session", "payin_invalid_data")
  }
  ctx.logger.info(`payin (${ctx.providerId}): payment session ${sessionId} takes the late payment of pay-in ${row.service_id}`)
  const expiresAt = row.expires_at instanceof Date ? row.expires_at.toISOString() : new Date(String(row.expires_at)).toISOString()
  const sessionData = { ...toSessionData(row.service_data as unknown as Transaction, { id: row.id, method: row.method }, options.paymentWindowSeconds), payin_status: row.status, expires_at: expiresAt }
  return { id: row.service_id, status: "pending", data: { ...sessionData, session_id: sessionId } as Record<string, unknown> }
}

/**
 * Refuses a new pay-in once the collection had MAX_CREATIONS_PER_COLLECTION in the last
 * CREATION_WINDOW_SECONDS. Before the row is written (`ledgerId` null) nothing is written for a
 * refused request; after (`ledgerId`), the row counts itself, and a refused one is recorded failed.
 */
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

/** Records a creation request that failed, unless it may have created the pay-in at the service. */
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

/**
 * Asks the service about a pay-in the ledger has no answer for yet (its creation's outcome is
 * unknown) and records the answer through the ledger's one writer (history, flags, events).
 * When the service cannot be reached, the ledger's row stands; reconciliation catches up.
 */
export async function lookUpCreation(ctx: CreationContext, data: Record<string, unknown>, row: LedgerRow | null): Promise<LedgerRow | null> {
  const externalId = row?.session_id ?? (typeof data.session_id === "string" ? data.session_id : null)
  try {
    const transaction = await ctx.payin.settings.withClient(ctx.instanceId, (client) => client.lookUp({ externalId }))
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
