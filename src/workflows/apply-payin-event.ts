import { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, MathBN, Modules, PaymentActions } from "@medusajs/framework/utils"
import { cancelOrderWorkflow, processPaymentWorkflow } from "@medusajs/medusa/core-flows"
import { PAYIN_MODULE, payinProviderId } from "../../medusa-plugin.config"
import { errorMessage } from "../client/errors"
import type { Transaction } from "../client/schemas"
import type PayinModuleService from "../modules/payin/service"
import type { LedgerRow, StatusSource } from "../modules/payin/service"

export type ApplyPayinEventInput = {
  /** Provider instance id (`default` for pp_payin_default). */
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
}

type SessionInfo = {
  id: string
  amount: unknown
  payment_collection_id: string
  cartId: string | null
  orderId: string | null
  paymentCapturedAt: string | null
}

/**
 * The single path that applies a pay-in status to the store, shared by the webhook route, lookups
 * and admin actions: it records the status on the ledger through the transition table, then makes
 * Medusa follow, idempotently:
 * - `closed`: processPaymentWorkflow with `captured` and the session amount (completes the cart or
 *   captures the placed order's payment); a payment into a pay-in whose session was deleted or
 *   which the store already ended is flagged for the merchant, never attached.
 * - `canceled`: the store ends the pay-in (a later authorize answers canceled) and, when the
 *   setting is on, cancels the order placed while waiting for the payment.
 * - dispute states: recorded on the ledger.
 * Effects are derived from the ledger state, not from "did the status just change", so a repeat
 * after a failed effect completes it, and a repeat after a done effect does nothing.
 */
export async function applyPayinEvent(
  container: MedusaContainer,
  input: ApplyPayinEventInput
): Promise<ApplyPayinEventResult> {
  const ledger = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const providerId = payinProviderId(input.instanceId)
  const row = await findOrCreateRow(ledger, providerId, input.transaction)

  return withLock(
    container,
    `payin:${row.id}`,
    async () => {
      const { row: current, transition } = await ledger.recordServiceTransaction(row.id, input.transaction, input.source)
      if (transition.changed) {
        await emitStatusEvents(container, current, transition.from)
      }
      const effects = await followInMedusa(container, ledger, current, input.instanceId)
      return { ledgerId: current.id, status: current.status, changed: transition.changed, effects }
    }
  )
}

/**
 * Holds `key` through Medusa's locking module while `job` runs, across processes when a shared
 * provider (locking-postgres, locking-redis) is configured. It takes the lock as a row with an
 * expiry (acquire/release) rather than `execute`, which with locking-postgres keeps a database
 * connection open for the whole job: under load that exhausts the pool the job itself needs.
 */
export async function withLock<T>(
  container: MedusaContainer,
  key: string,
  job: () => Promise<T>,
  { waitMs = 60_000, expireSeconds = 120 } = {}
): Promise<T> {
  const locking = container.resolve(Modules.LOCKING)
  const ownerId = `payin-${process.pid}-${Math.random().toString(36).slice(2)}`
  const deadline = Date.now() + waitMs
  for (let attempt = 0; ; attempt++) {
    try {
      await locking.acquire(key, { ownerId, expire: expireSeconds })
      break
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(`Timed out after ${waitMs} ms waiting for the lock ${key}`)
      }
      await new Promise((r) => setTimeout(r, Math.min(200, 10 * 2 ** Math.min(attempt, 4)) * (0.5 + Math.random())))
    }
  }
  try {
    return await job()
  } finally {
    await locking.release(key, { ownerId }).catch(() => undefined)
  }
}

async function findOrCreateRow(ledger: PayinModuleService, providerId: string, tx: Transaction): Promise<LedgerRow> {
  const [byService] = (await ledger.listPayinTransactions({ service_id: tx.id })) as unknown as LedgerRow[]
  if (byService) {
    return byService
  }
  const externalId = tx.extra?.externalTransactionId
  if (externalId) {
    const [byExternal] = (await ledger.listPayinTransactions({ session_id: externalId })) as unknown as LedgerRow[]
    if (byExternal && byExternal.provider_id === providerId && !byExternal.service_id) {
      return byExternal
    }
  }
  // A pay-in the store did not create (or whose row is gone): keep it, flagged, so it is not lost.
  const created = (await ledger.createPayinTransactions({
    provider_id: providerId,
    session_id: null,
    status: "creating",
    amount: tx.fiatAmount,
    currency_code: tx.fiatCurrency.toLowerCase(),
    flags: { unknown_payin: { at: new Date().toISOString(), external_id: externalId ?? null } },
  } as never)) as unknown as LedgerRow
  return created
}

async function followInMedusa(
  container: MedusaContainer,
  ledger: PayinModuleService,
  initial: LedgerRow,
  instanceId: string
): Promise<string[]> {
  let row = initial
  const effects: string[] = []
  const flag = async (name: string, details: Record<string, unknown>) => {
    if (!row.flags || !(name in row.flags)) {
      row = await ledger.markLedger(row.id, { flag: { name, details } })
      effects.push(`flagged:${name}`)
      await emit(container, PAYIN_EVENTS.PAYMENT_FLAGGED, { ...eventData(row), flag: name, details })
    }
  }
  const moneyDetails = () => ({
    fiat_amount: row.fiat_amount,
    currency: row.currency_code,
    requisite: row.requisite,
    cart_id: row.cart_id,
    order_id: row.order_id,
    session_id: row.session_id,
  })

  if (row.status === "closed") {
    if (row.captured_at) {
      return effects
    }
    if (row.store_canceled_at) {
      await flag("late_payment", { ...moneyDetails(), reason: "paid after the store ended the pay-in (expired or order canceled)" })
      return effects
    }
    const session = row.session_id ? await loadSession(container, row.session_id) : null
    if (!session) {
      await flag("stray_payment", {
        ...moneyDetails(),
        reason: row.session_id ? "paid after Medusa deleted the payment session (the cart changed)" : "pay-in unknown to the store",
      })
      return effects
    }
    if (session.orderId) {
      const order = await loadOrder(container, session.orderId)
      if (order?.status === "canceled") {
        await ledger.markLedger(row.id, { store_canceled_at: new Date(), order_id: session.orderId })
        await flag("late_payment", { ...moneyDetails(), order_id: session.orderId, reason: "paid after the order was canceled" })
        return effects
      }
    }
    // The booked amount is what the service received: the session amount, or the recalculated
    // one after a dispute (then an under- or overpayment is flagged for the merchant).
    const amount = bookedAmount(row, session.amount)
    if (amount.differs) {
      await flag(amount.under ? "underpayment" : "overpayment", {
        ...moneyDetails(),
        order_amount: String(session.amount),
        received_amount: amount.value,
      })
    }
    await processPaymentWorkflow(container).run({
      input: { action: PaymentActions.SUCCESSFUL, data: { session_id: session.id, amount: amount.value as unknown as number } },
    })
    const after = await loadSession(container, session.id)
    if (after?.paymentCapturedAt) {
      await ledger.markLedger(row.id, {
        captured_at: new Date(),
        ...(after.orderId ? { order_id: after.orderId } : {}),
        ...(after.cartId ? { cart_id: after.cartId } : {}),
      })
      effects.push("captured")
    } else {
      throw new Error(
        `Medusa did not capture the payment of session ${session.id} (cart ${after?.cartId ?? "?"}, order ${after?.orderId ?? "none"})`
      )
    }
    return effects
  }

  if (row.status === "canceled") {
    if (row.store_canceled_at) {
      return effects
    }
    const session = row.session_id ? await loadSession(container, row.session_id) : null
    if (session?.orderId && !session.paymentCapturedAt && (await cancelUnpaidOrders(ledger, instanceId))) {
      const order = await loadOrder(container, session.orderId)
      if (order && order.status !== "canceled" && order.payment_status !== "captured") {
        await cancelOrderWorkflow(container).run({ input: { order_id: session.orderId } })
        effects.push("order_canceled")
      }
    }
    await ledger.markLedger(row.id, {
      store_canceled_at: new Date(),
      ...(session?.orderId ? { order_id: session.orderId } : {}),
      ...(session?.cartId ? { cart_id: session.cartId } : {}),
      note: "payment window ended unpaid",
    })
    effects.push("ended")
  }
  return effects
}

/** Events a merchant's subscribers can react to (emitted after the ledger changed; at least once). */
export const PAYIN_EVENTS = {
  DISPUTE_OPENED: "payin.dispute_opened",
  DISPUTE_UPDATED: "payin.dispute_updated",
  AMOUNT_RECALCULATED: "payin.amount_recalculated",
  PAYMENT_FLAGGED: "payin.payment_flagged",
} as const

const DISPUTE_STATES = new Set(["dispute", "checking", "re_calculation"])

async function emitStatusEvents(container: MedusaContainer, row: LedgerRow, from: string): Promise<void> {
  if (row.status === "dispute" && !DISPUTE_STATES.has(from)) {
    await emit(container, PAYIN_EVENTS.DISPUTE_OPENED, eventData(row))
  } else if (row.status === "dispute" || row.status === "checking") {
    await emit(container, PAYIN_EVENTS.DISPUTE_UPDATED, eventData(row))
  } else if (row.status === "re_calculation") {
    await emit(container, PAYIN_EVENTS.AMOUNT_RECALCULATED, eventData(row))
  }
}

function eventData(row: LedgerRow): Record<string, unknown> {
  const tx = (row.service_data ?? {}) as Partial<Transaction>
  return {
    id: row.id,
    provider_id: row.provider_id,
    service_id: row.service_id,
    status: row.status,
    session_id: row.session_id,
    cart_id: row.cart_id,
    order_id: row.order_id,
    amount: String(row.amount),
    currency_code: row.currency_code,
    fiat_amount: row.fiat_amount,
    dispute: {
      merchant_check_url: tx.disputeMerchantCheckUrl ?? null,
      trader_check_url: tx.disputeTraderCheckUrl ?? null,
      merchant_fiat_amount: tx.disputeMerchantFiatAmount ?? null,
      trader_fiat_amount: tx.disputeTraderFiatAmount ?? null,
    },
  }
}

async function emit(container: MedusaContainer, name: string, data: Record<string, unknown>): Promise<void> {
  try {
    await container.resolve(Modules.EVENT_BUS).emit({ name, data })
  } catch (error) {
    container.resolve("logger").warn(`payin: could not emit ${name}: ${errorMessage(error)}`)
  }
}

/** The amount to book when the pay-in closes: the recalculated one when the service changed it. */
function bookedAmount(row: LedgerRow, sessionAmount: unknown): { value: string; differs: boolean; under: boolean } {
  const session = MathBN.convert(sessionAmount as string)
  if (!row.fiat_amount || !row.recalculated_at) {
    return { value: session.toString(), differs: false, under: false }
  }
  const received = MathBN.convert(row.fiat_amount)
  return { value: received.toString(), differs: !received.eq(session), under: received.lt(session) }
}

async function cancelUnpaidOrders(ledger: PayinModuleService, instanceId: string): Promise<boolean> {
  return (await ledger.providerOptions(instanceId))?.cancelUnpaidOrdersOnExpiry ?? true
}

async function loadSession(container: MedusaContainer, sessionId: string): Promise<SessionInfo | null> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data: sessions } = await query.graph({
    entity: "payment_session",
    fields: ["id", "amount", "payment_collection_id", "payment.id", "payment.captured_at"],
    filters: { id: sessionId },
  })
  const session = sessions[0] as
    | { id: string; amount: unknown; payment_collection_id: string; payment?: { captured_at?: string | null } | null }
    | undefined
  if (!session) {
    return null
  }
  const [{ data: carts }, { data: orders }] = await Promise.all([
    query.graph({
      entity: "cart_payment_collection",
      fields: ["cart_id"],
      filters: { payment_collection_id: session.payment_collection_id },
    }),
    query.graph({
      entity: "order_payment_collection",
      fields: ["order_id"],
      filters: { payment_collection_id: session.payment_collection_id },
    }),
  ])
  let orderId = (orders[0] as { order_id?: string } | undefined)?.order_id ?? null
  const cartId = (carts[0] as { cart_id?: string } | undefined)?.cart_id ?? null
  if (!orderId && cartId) {
    const { data: orderCarts } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } })
    orderId = (orderCarts[0] as { order_id?: string } | undefined)?.order_id ?? null
  }
  return {
    id: session.id,
    amount: session.amount,
    payment_collection_id: session.payment_collection_id,
    cartId,
    orderId,
    paymentCapturedAt: session.payment?.captured_at ?? null,
  }
}

async function loadOrder(
  container: MedusaContainer,
  orderId: string
): Promise<{ id: string; status: string; payment_status?: string } | null> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({ entity: "order", fields: ["id", "status", "payment_status"], filters: { id: orderId } })
  return (data[0] as { id: string; status: string; payment_status?: string }) ?? null
}
