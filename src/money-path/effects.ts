import { MedusaContainer } from "@medusajs/framework/types"
import { cancelOrderWorkflow } from "@medusajs/medusa/core-flows"
import { errorMessage } from "../client/errors"
import type { ClaimedRow, EffectAnnouncement, EffectOutcomeRecord } from "../modules/payin/ledger/effects"
import { EffectFencedError } from "../modules/payin/ledger/errors"
import type { LedgerRow } from "../modules/payin/ledger/types"
import { capturableAmount, gt, lt, remainingToCapture } from "../money"
import type PayinModuleService from "../modules/payin/service"
import { instanceIdOf } from "../provider-id"
import type { PayinFlag } from "../status"
import { book } from "./book"
import { type LockHold, LockLostError, withLock } from "./lock"
import { loadOrder, loadSession, orderAwaitingPayment, resolveCollection, sessionForLatePayment } from "./medusa"
import { decideEnd } from "./pay-again"
import { pauseForTests } from "./test-pause"

export type EffectOutcome = { effects: string[]; pending: boolean }

export type EffectRunOptions = {
  /** Run it even while it backs off after a failure (`next_effect_at`): the admin's "Reconcile now". */
  force?: boolean
  /** The per-pay-in lock the caller holds: a run stops before its next step once it is lost. */
  hold?: LockHold
}

/**
 * One claimed run of an effect: its fencing token, the check made before each step outside the
 * ledger, and how it ends: one commit of the whole outcome (flags, notes, links, the effect
 * cleared, the notification owed), its events after it.
 */
type Run = { fence: number; guard: () => Promise<void>; settle: (outcome: EffectOutcomeRecord) => Promise<boolean> }

/**
 * Makes Medusa follow the ledger: the effect the last status change asked for (`effect_pending`,
 * recorded in the same commit as the status) is done here, idempotently, and cleared when done.
 * A run first claims the effect on the row (a fencing token; only when it is due, unless forced)
 * and checks before each Medusa step, and when settling it, that it still holds the lock and
 * the token: a run that outlived its lock stops and leaves the effect to its new holder. Each
 * outcome is written in one commit (settle). A
 * failure leaves it pending, due again after a backoff (30 s doubling to an hour, jittered):
 * reconciliation retries it for good, and after the plugin's effectRetryLimit attempts the
 * pay-in is flagged (capture_failed / order_cancel_failed).
 * - capture (closed): the amount to book, for a placed order by authorizing the session and
 *   capturePaymentWorkflow, for a cart not yet completed by processPaymentWorkflow (which completes
 *   it); money into a pay-in the store ended or whose
 *   session is gone is flagged, never attached; paid without an order is flagged.
 * - cancel_order (canceled): the store ends the pay-in and, when the setting is on, cancels the
 *   order placed while waiting for the payment, unless another pay-in of its payment collection
 *   was paid.
 */
export async function followInMedusa(
  container: MedusaContainer,
  payin: PayinModuleService,
  row: LedgerRow,
  options: EffectRunOptions = {}
): Promise<EffectOutcome> {
  if (!row.effect_pending) {
    return { effects: [], pending: false }
  }
  const claimed = await payin.ledger.effects.claim(row.id, { force: options.force })
  if (!claimed?.effect_pending) {
    // backing off after a failure: reconciliation runs it when due
    return { effects: [], pending: true }
  }
  const effect = claimed.effect_pending
  const fence = Number(claimed.effect_fence)
  const run: Run = {
    fence,
    guard: async () => {
      options.hold?.throwIfLost()
      await payin.ledger.effects.assertFence(row.id, fence)
    },
    settle: async (outcome) => (await payin.ledger.effects.settle(row.id, effect, outcome, fence)).flagged,
  }
  const effects: string[] = []
  try {
    if (effect === "capture") {
      await capture(container, payin, claimed, effects, run)
    } else {
      await endOrder(container, payin, claimed, effects, run)
    }
    return { effects, pending: false }
  } catch (error) {
    const message = errorMessage(error)
    if (error instanceof LockLostError || error instanceof EffectFencedError) {
      // not a failure of the effect: whoever holds the pay-in now does it (or the next run)
      container.resolve("logger").warn(`payin: stopped the ${effect} of ${row.id}: ${message}`)
      return { effects, pending: true }
    }
    container.resolve("logger").warn(`payin: ${effect} of ${row.id} did not happen yet, will retry: ${message}`)
    await payin.ledger.effects.failed(row.id, effect, message, fence)
    return { effects, pending: true }
  }
}

/**
 * The capture effect. Pay-ins of one order can be paid close together (a late payment into an
 * ended pay-in while the shopper pays new details): while a payment collection holds more than
 * one pay-in, its captures take turns (a lock across processes), so each sees what the others
 * booked and the order is never paid twice.
 */
async function capture(container: MedusaContainer, payin: PayinModuleService, row: ClaimedRow, effects: string[], run: Run): Promise<void> {
  const collectionId = row.payment_collection_id
  if (!collectionId || row.collection_payins < 2) {
    return captureOne(container, payin, row, effects, run)
  }
  await withLock(container, `payin:collection:${collectionId}`, () => captureOne(container, payin, row, effects, run), COLLECTION_LOCK)
}

/** One capture at a time per payment collection: long enough for Medusa's capture, a dead holder's lock expires. */
const COLLECTION_LOCK = { waitMs: 30_000, expireSeconds: 120 }

async function captureOne(container: MedusaContainer, payin: PayinModuleService, claimed: LedgerRow, effects: string[], run: Run): Promise<void> {
  let row = claimed
  /** Settles the capture with a flag (once): `flagged:<name>` when the flag is new. */
  const settleFlagged = async (name: PayinFlag, reason: string, extra: Record<string, unknown>, outcome: EffectOutcomeRecord) => {
    const ids = await resolveCollection(container, row.payment_collection_id)
    const details = {
      reason,
      fiat_amount: row.fiat_amount,
      currency: row.currency_code,
      requisite: row.requisite,
      session_id: row.session_id,
      payment_collection_id: row.payment_collection_id,
      cart_id: row.cart_id ?? ids.cart_id,
      order_id: row.order_id ?? ids.order_id,
      ...extra,
    }
    if (await run.settle({ ...outcome, flag: { flag: name, details } })) effects.push(`flagged:${name}`)
  }
  let session = row.session_id ? await loadSession(container, row.session_id, { orderId: row.order_id, cartId: row.cart_id }) : null
  if (row.store_canceled_at || !session) {
    // Paid after the store ended the pay-in, or after Medusa deleted its session (the cart changed,
    // or the shopper asked for new details): captured only for an order that still awaits its
    // payment, on a session of its own; otherwise flagged for the merchant, never attached.
    const orderId = await orderAwaitingPayment(container, row, session)
    if (orderId && !session) {
      session = await sessionForLatePayment(container, row, orderId)
    }
    if (!orderId || !session) {
      if (row.store_canceled_at) {
        await settleFlagged("late_payment", "paid after the store ended the pay-in (expired or order canceled)", {}, { note: "not captured: late payment" })
      } else {
        const reason = row.session_id ? "paid after Medusa deleted the payment session (the cart changed)" : "pay-in unknown to the store"
        await settleFlagged("stray_payment", reason, {}, { note: "not captured: stray payment" })
      }
      return
    }
    if (row.store_canceled_at) {
      await payin.ledger.effects.reopenForLatePayment(row.id, run.fence, `paid late while order ${orderId} still awaits its payment: captured for it`)
      row = { ...row, store_canceled_at: null }
    }
    effects.push("late_payment_taken")
  }
  if (gt(session.collectionCapturedAmount, session.capturedAmount)) {
    // the order's money came through another pay-in of it already (paid twice): the merchant decides
    await settleFlagged(
      "stray_payment",
      "paid after the order was paid through another pay-in",
      { order_id: session.orderId },
      { order_id: session.orderId, note: "not captured: the order was paid already" }
    )
    return
  }
  if (session.orderId && (session.orderStatus ?? (await loadOrder(container, session.orderId))?.status) === "canceled") {
    await settleFlagged(
      "late_payment",
      "paid after the order was canceled",
      { order_id: session.orderId },
      { ended: "order canceled before the payment arrived", order_id: session.orderId, note: "not captured: late payment" }
    )
    return
  }
  const amount = capturableAmount(row)
  if (amount === null) {
    // received in another currency: flagged when recorded; the merchant decides
    await run.settle({ note: "not captured: received in another currency" })
    return
  }
  // Capture up to what arrived, less what Medusa captured already (another path, an admin): the
  // provider's capturePayment refuses anything beyond it, so no path books the difference twice.
  const rest = remainingToCapture(amount, session.capturedAmount)
  const { orderId, captured, sessionGone } = await book(container, session, rest, { ledgerId: row.id, currency: row.currency_code }, run)
  const booked = !lt(captured, amount)
  if (orderId && booked) {
    effects.push("captured")
    const announce = await announcement(container, payin, row, { kind: "captured", order_id: orderId })
    await run.settle({ captured: true, order_id: orderId, cart_id: session.cartId, announce })
    return
  }
  if (!orderId && (booked || sessionGone)) {
    // Medusa took the payment, then could not place the order (out of stock, …) and its
    // compensation replaced the session: the money is in, no order exists. The merchant decides.
    await settleFlagged(
      "paid_without_order",
      "paid, but Medusa could not place the order from the cart",
      { cart_id: session.cartId },
      { captured: gt(captured, 0), cart_id: session.cartId }
    )
    return
  }
  throw new Error(
    `Medusa captured ${captured} of ${amount} for session ${session.id} (cart ${session.cartId ?? "?"}, order ${orderId ?? "none"})`
  )
}

async function endOrder(container: MedusaContainer, payin: PayinModuleService, row: LedgerRow, effects: string[], run: Run): Promise<void> {
  const session = row.session_id ? await loadSession(container, row.session_id, { orderId: row.order_id, cartId: row.cart_id }) : null
  const ids = { order_id: session?.orderId ?? null, cart_id: session?.cartId ?? null }
  const instanceId = instanceIdOf(row.provider_id)
  const options = instanceId ? await payin.settings.providerOptions(instanceId) : null
  const cancelUnpaid = instanceId ? (options?.cancelUnpaidOrdersOnExpiry ?? true) : false
  const capturedAny = Boolean(session && gt(session.collectionCapturedAmount, 0))
  const siblings = session && !capturedAny ? await payin.ledger.ofCollections([session.payment_collection_id]) : []
  // another pay-in of the same payment collection was paid (a stray payment into an earlier one of this order)
  const paidSibling = siblings.find((r) => r.id !== row.id && r.paid_at)
  const ended = "payment window ended unpaid"
  // pay again: the order waits for its grace period, or for another payable pay-in of it
  const waitable = session?.orderId && session.orderStatus !== "canceled" && !capturedAny && !paidSibling
  const decision = waitable ? decideEnd(row, siblings, options?.payAgain, Date.now()) : null
  if (decision && decision.kind !== "cancel") {
    const waits = decision.kind === "wait"
    const announce =
      waits && !row.pay_again_until
        ? await announcement(container, payin, row, {
            kind: "expired",
            order_id: ids.order_id,
            order_canceled: false,
            pay_again_until: decision.until.toISOString(),
          })
        : undefined
    await run.guard()
    await run.settle({
      ended,
      ...ids,
      announce,
      payAgainUntil: decision.until ?? undefined,
      payAgainStarted: Boolean(decision.until) && !siblings.some((r) => r.pay_again_until),
      deferUntil: waits ? decision.until : undefined,
      note: waits
        ? `the order waits until ${decision.until.toISOString()} for the shopper to pay again`
        : `the order waits for pay-in ${decision.payinId}`,
    })
    effects.push(waits ? "waiting" : "ended")
    return
  }
  let flag: EffectOutcomeRecord["flag"]
  if (session?.orderId && !capturedAny && cancelUnpaid) {
    const order = await loadOrder(container, session.orderId)
    if (paidSibling) {
      // keep the order, tell the merchant
      flag = {
        flag: "paid_elsewhere",
        details: {
          reason: "expired unpaid, but another pay-in of the same payment collection was paid: the order was kept",
          paid_payin_id: paidSibling.id,
          payment_collection_id: session.payment_collection_id,
          ...ids,
        },
      }
    } else if (order && order.status !== "canceled") {
      await pauseForTests(container, "cancel_order", row.id)
      await run.guard()
      await cancelOrderWorkflow(container).run({ input: { order_id: session.orderId } })
      effects.push("order_canceled")
    }
  }
  // not when the order was paid through another pay-in of its payment collection; what Medusa
  // holds, not what this run did: an earlier run may have canceled the order and stopped (a
  // crash, a failure) before the effect was settled. Once per pay-in: a pay-in whose order waited
  // for its grace period announced its end then.
  const announce =
    !capturedAny && !paidSibling && !row.pay_again_until
      ? await announcement(container, payin, row, {
          kind: "expired",
          order_id: ids.order_id,
          order_canceled: Boolean(ids.order_id && (await loadOrder(container, ids.order_id))?.status === "canceled"),
        })
      : undefined
  // ending the pay-in clears the effect: only while this run still holds it
  await run.guard()
  const flagged = await run.settle({ ended, ...ids, flag, announce })
  if (flagged) effects.push("flagged:paid_elsewhere")
  effects.push("ended")
}

/**
 * What an outcome announces (payin.captured / payin.expired, sent after its commit; shopper
 * notifications are sent by their subscribers, on a worker), and whether the instance owes the
 * shopper a notification for it: recorded in the same commit, so if the event is lost the
 * notification retry job still finds it and decides it afresh.
 */
async function announcement(
  container: MedusaContainer,
  payin: PayinModuleService,
  row: LedgerRow,
  notice: EffectAnnouncement
): Promise<EffectOutcomeRecord["announce"]> {
  const instanceId = instanceIdOf(row.provider_id)
  let notify = false
  try {
    notify = Boolean(notice.order_id && instanceId && (await payin.settings.providerOptions(instanceId))?.notifications.enabled)
  } catch (error) {
    container.resolve("logger").warn(`payin: could not read the notification settings of ${row.provider_id}: ${errorMessage(error)}`)
  }
  return { notice, notify }
}
