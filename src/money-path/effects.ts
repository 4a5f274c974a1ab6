import { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { cancelOrderWorkflow } from "@medusajs/medusa/core-flows"
import { errorMessage } from "../client/errors"
import { gt, lt } from "../money"
import type { ClaimedRow, EffectAnnouncement, EffectOutcomeRecord } from "../modules/payin/ledger/effects"
import { EffectFencedError } from "../modules/payin/ledger/errors"
import type { LedgerRow, StatusSource } from "../modules/payin/ledger/types"
import type PayinModuleService from "../modules/payin/service"
import { instanceIdOf } from "../provider-id"
import { capturedSince, traceEffect } from "../telemetry"
import { authorizeForOrder, captureRest, completeCapturedCart, completeCart, recordOrderCaptures } from "./workflows"
import { type CaptureStep, decideBooked, decideCapture, decideOrderEnd, paysLate } from "./decide"
import { type LockHold, LockLostError, payinLockOptions, withLock } from "./lock"
import { lockHeld, orderOfCart, refreshPaymentCollection } from "../medusa"
import { whileHeld } from "../providers/payin/held-booking"
import { type SessionInfo, capturedOfSessionPayment, loadSession, markLostSessions, orderAwaitingPayment, resolveCollection } from "./session"

export type EffectOutcome = { effects: string[]; pending: boolean }

export type EffectRunOptions = {
  force?: boolean
  hold?: LockHold
  /** What runs it (none: a retry); a capture is timed from `receivedAt` (the webhook's receipt), else from when the ledger recorded the payment. */
  source?: StatusSource
  receivedAt?: number
  /** The effect claimed already, with the status move that asked for it (ledger.recordSeenStatus). */
  claimed?: ClaimedRow | null
}

type Run = {
  fence: number
  guard: () => Promise<void>
  settle: (outcome: EffectOutcomeRecord) => Promise<boolean>
  /** Runs `job` holding the lock of the pay-in's payment collection (at once when the run holds it already). */
  inCollection: <T>(job: () => Promise<T>) => Promise<T>
}

export async function followInMedusa(
  container: MedusaContainer,
  payin: PayinModuleService,
  row: LedgerRow,
  options: EffectRunOptions = {}
): Promise<EffectOutcome> {
  if (!row.effect_pending) {
    return { effects: [], pending: false }
  }
  const { outcome: _o, ...ran } = await traceEffect(row.effect_pending, row.id, () => runEffect(container, payin, row, options))
  if (ran.effects.includes("captured")) capturedSince(options.receivedAt ?? row.paid_at, options.source)
  return ran
}

async function runEffect(
  container: MedusaContainer,
  payin: PayinModuleService,
  row: LedgerRow,
  options: EffectRunOptions
): Promise<EffectOutcome & { outcome: "done" | "failed" | "stopped" | "deferred" }> {
  const claimed = options.claimed ?? (await payin.ledger.effects.claim(row.id, { force: options.force }))
  if (!claimed?.effect_pending) {
    // backing off after a failure: reconciliation runs it when due
    return { effects: [], pending: true, outcome: "deferred" }
  }
  const effect = claimed.effect_pending
  const fence = Number(claimed.effect_fence)
  const collectionId = claimed.payment_collection_id
  const lock = payinLockOptions((await payin.settings.plugin()).lockTtlSeconds)
  let holding = false
  const inCollection = async <T>(job: () => Promise<T>): Promise<T> => {
    if (holding || !collectionId) return job()
    return withLock(container, `payin:collection:${collectionId}`, async () => {
      holding = true
      try {
        return await job()
      } finally {
        holding = false
      }
    }, lock)
  }
  const run: Run = {
    fence,
    guard: async () => {
      options.hold?.throwIfLost()
      await payin.ledger.effects.assertFence(row.id, fence)
    },
    settle: async (outcome) => (await payin.ledger.effects.settle(row.id, effect, outcome, fence)).flagged,
    inCollection,
  }
  const effects: string[] = []
  try {
    if (effect === "capture") {
      // the only pay-in of its collection: nothing else can book for the order (no new pay-in is
      // made once one is paid), so only its repair of capture transactions takes the lock
      const job = () => capture(container, payin, claimed, effects, run)
      await (claimed.collection_payins > 1 ? inCollection(job) : job())
    } else {
      await inCollection(() => endOrder(container, payin, claimed, effects, run))
    }
    return { effects, pending: false, outcome: "done" }
  } catch (error) {
    const message = errorMessage(error)
    if (error instanceof LockLostError || error instanceof EffectFencedError) {
      // not a failure of the effect: whoever holds the pay-in now does it (or the next run)
      container.resolve("logger").warn(`payin: stopped the ${effect} of ${row.id}: ${message}`)
      return { effects, pending: true, outcome: "stopped" }
    }
    container.resolve("logger").warn(`payin: ${effect} of ${row.id} did not happen yet, will retry: ${message}`)
    await payin.ledger.effects.failed(row.id, effect, message, fence)
    return { effects, pending: true, outcome: "failed" }
  }
}

/** How long a booking waits for a completion of its cart under way before it is retried later. */
const COMPLETION_WAIT_MS = 5_000

async function capture(container: MedusaContainer, payin: PayinModuleService, claimed: LedgerRow, effects: string[], run: Run): Promise<void> {
  let row = claimed
  let completionWaited = false
  for (let round = 0; round < 4; round++) {
    const session = row.session_id ? await loadSession(container, row.session_id, { orderId: row.order_id, cartId: row.cart_id }) : null
    const step = decideCapture(row, session, paysLate(row, session) ? await orderAwaitingPayment(container, row, session) : null)
    switch (step.kind) {
      case "flag": {
        const ids = await resolveCollection(container, row.payment_collection_id)
        const orderId = step.orderId ?? row.order_id ?? ids.order_id
        const details = {
          reason: step.reason,
          fiat_amount: row.fiat_amount,
          currency: row.currency_code,
          requisite: row.requisite,
          session_id: row.session_id,
          payment_collection_id: row.payment_collection_id,
          cart_id: row.cart_id ?? ids.cart_id,
          order_id: orderId,
        }
        const outcome = { note: step.note, ended: step.ended, ...(step.orderId ? { order_id: step.orderId } : {}) }
        if (await run.settle({ ...outcome, flag: { flag: step.flag, details } })) effects.push(`flagged:${step.flag}`)
        return
      }
      case "skip":
        await run.settle({ note: step.note })
        return
      case "reopen":
        await payin.ledger.effects.reopenForLatePayment(row.id, run.fence, `paid late while order ${step.orderId} still awaits its payment: captured for it`)
        row = { ...row, store_canceled_at: null }
        effects.push("late_payment_taken")
        continue
      case "new_session":
        await run.guard()
        row = { ...row, session_id: await sessionForLatePayment(container, payin, row, run) }
        if (!effects.includes("late_payment_taken")) effects.push("late_payment_taken")
        continue
      default:
        // an order a completion of the cart is still placing is not placed yet: that completion
        // rolls it back when the payment it authorizes is not its own (soak seed 1: captured for
        // an order Medusa then deleted). Wait for it to end, then decide again on what it left.
        // (an order linked at order.placed was placed for good: Medusa emits it once the completion ended)
        if (step.kind === "authorize" && !row.order_id && session?.cartId && !completionWaited && (await completionUnderWay(container, session.cartId))) {
          completionWaited = true
          continue
        }
        return book(container, payin, row, session!, step, effects, run)
    }
  }
  throw new Error(`the capture of ${row.id} did not settle on a step`)
}

async function sessionForLatePayment(container: MedusaContainer, payin: PayinModuleService, row: LedgerRow, run: Run): Promise<string> {
  await payin.ledger.requestReattach(row.id, run.fence)
  const created = await container.resolve(Modules.PAYMENT).createPaymentSession(row.payment_collection_id!, {
    provider_id: row.provider_id,
    currency_code: row.currency_code,
    amount: String(row.raw_amount?.value ?? row.amount),
    data: {},
  })
  const attached = await payin.ledger.get(row.id)
  if (attached?.session_id !== created.id) throw new Error(`payment session ${created.id} did not take the late payment of ${row.id}`)
  return created.id
}

async function completionUnderWay(container: MedusaContainer, cartId: string): Promise<boolean> {
  if (!(await lockHeld(container, cartId))) return false
  for (const deadline = Date.now() + COMPLETION_WAIT_MS; Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 250))
    if (!(await lockHeld(container, cartId))) return true
  }
  throw new Error(`a completion of cart ${cartId} still holds its lock after ${COMPLETION_WAIT_MS} ms: booked when it ended`)
}

async function book(
  container: MedusaContainer,
  payin: PayinModuleService,
  row: LedgerRow,
  session: SessionInfo,
  step: Extract<CaptureStep, { kind: "authorize" | "capture" | "complete_cart" }>,
  effects: string[],
  run: Run
): Promise<void> {
  await payin.faultPoints("capture", row.id)
  await run.guard()
  if (lt(session.collectionCapturedAmount, session.capturedAmount)) {
    // a capture Medusa committed without its collection's update (cut between the two)
    await run.inCollection(async () => {
      await run.guard()
      await refreshPaymentCollection(container.resolve(Modules.PAYMENT), session.payment_collection_id)
    })
  }
  let booked: { orderId: string | null; captured: string; sessionGone: boolean }
  // the provider's hooks Medusa calls for this session answer from the row and session this run holds
  const held = <T>(work: () => Promise<T>) => whileHeld({ row, session }, work)
  if (step.kind === "authorize") {
    booked = { orderId: session.orderId, captured: await held(() => authorizeForOrder(container, session, step.rest)), sessionGone: false }
  } else if (step.kind === "capture") {
    // Medusa's capture workflow gives every capture of the Payment lacking its order transaction the new
    // capture's amount: one whose transaction a stopped run never wrote is recorded first, at its own
    if (gt(session.capturedAmount, 0)) {
      await run.inCollection(async () => {
        await run.guard()
        await recordOrderCaptures(container, session.orderId!, session.paymentId!)
      })
    }
    const captured = step.rest !== "0" ? await held(() => captureRest(container, session.paymentId!, step.rest)) : session.capturedAmount
    booked = { orderId: session.orderId, captured, sessionGone: false }
  } else {
    if (step.rest !== "0") await held(() => completeCart(container, session.id, step.rest))
    else if (session.cartId) await held(() => completeCapturedCart(container, session.cartId!))
    // completion may have failed and replaced the session (its Payment outlives it)
    const after = await loadSession(container, session.id)
    booked = {
      orderId: after?.orderId ?? (await orderOfCart(container, session.cartId)),
      captured: after ? after.capturedAmount : await capturedOfSessionPayment(container, session.id),
      sessionGone: !after,
    }
  }
  const outcome = decideBooked(step.amount, booked)
  if (outcome.kind === "short") throw new Error(`${outcome.message} for session ${session.id}`)
  if (outcome.kind === "captured") {
    effects.push("captured")
    const announce = await announcement(container, payin, row, { kind: "captured", order_id: outcome.orderId })
    await run.settle({ captured: true, order_id: outcome.orderId, cart_id: session.cartId, announce })
    return
  }
  const details = {
    reason: "paid, but Medusa could not place the order from the cart",
    fiat_amount: row.fiat_amount,
    currency: row.currency_code,
    session_id: row.session_id,
    payment_collection_id: row.payment_collection_id,
    cart_id: session.cartId,
  }
  if (await run.settle({ captured: outcome.captured, cart_id: session.cartId, flag: { flag: "paid_without_order", details } })) {
    effects.push("flagged:paid_without_order")
  }
}

async function endOrder(container: MedusaContainer, payin: PayinModuleService, row: LedgerRow, effects: string[], run: Run): Promise<void> {
  const instanceId = instanceIdOf(row.provider_id)
  const options = instanceId ? await payin.settings.providerOptions(instanceId) : null
  const ended = "payment window ended unpaid"
  for (let round = 0; round < 3; round++) {
    // read afresh each round, under the collection's lock: no capture of the order runs meanwhile
    const session = row.session_id ? await loadSession(container, row.session_id, { orderId: row.order_id, cartId: row.cart_id }) : null
    const siblings = session ? await markLostSessions(container, await payin.ledger.ofCollections([session.payment_collection_id])) : []
    const step = decideOrderEnd(
      row,
      { session, siblings, cancelUnpaid: instanceId ? (options?.cancelUnpaidOrdersOnExpiry ?? true) : false, payAgain: options?.payAgain },
      Date.now()
    )
    const ids = { order_id: session?.orderId ?? null, cart_id: session?.cartId ?? null }
    if (step.kind === "cancel_order") {
      await payin.faultPoints("cancel_order", row.id)
      await run.guard()
      await cancelOrderWorkflow(container).run({ input: { order_id: step.orderId } })
      effects.push("order_canceled")
      continue
    }
    if (step.kind === "wait" || step.kind === "other") {
      const waits = step.kind === "wait"
      const announce =
        waits && step.announce
          ? await announcement(container, payin, row, { kind: "expired", order_id: ids.order_id, order_canceled: false, pay_again_until: step.until.toISOString() })
          : undefined
      await run.guard()
      await run.settle({
        ended,
        ...ids,
        announce,
        payAgainUntil: step.until ?? undefined,
        payAgainStarted: step.payAgainStarted,
        deferUntil: waits ? step.until : undefined,
        note: waits ? `the order waits until ${step.until.toISOString()} for the shopper to pay again` : `the order waits for pay-in ${step.payinId}`,
      })
      effects.push(waits ? "waiting" : "ended")
      return
    }
    const flag = step.flag && {
      flag: step.flag.flag,
      details: {
        reason: "expired unpaid, but another pay-in of the same payment collection was paid: the order was kept",
        paid_payin_id: step.flag.paidPayinId,
        payment_collection_id: session?.payment_collection_id ?? null,
        ...ids,
      },
    }
    // what Medusa holds, not what this run did: an earlier run may have canceled the order, then stopped
    const announce = step.announce
      ? await announcement(container, payin, row, { kind: "expired", order_id: ids.order_id, order_canceled: session?.orderStatus === "canceled" })
      : undefined
    await run.guard()
    if (await run.settle({ ended, ...ids, flag, announce })) effects.push("flagged:paid_elsewhere")
    effects.push("ended")
    return
  }
  throw new Error(`the end of ${row.id} did not settle on a step`)
}

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
