// What Medusa holds of a pay-in's payment session (its amount, captures, order), read through
// Medusa's public API; what reaches past it is src/medusa/'s.
import type { CaptureDTO, MedusaContainer, PaymentCollectionDTO, PaymentSessionDTO, PaymentSessionStatus } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { linksOfCollection } from "../medusa"
import { PAYIN_MODULE } from "../modules/payin/key"
import type { LedgerRow } from "../modules/payin/ledger/types"
import type PayinModuleService from "../modules/payin/service"
import { OPEN_STATUSES } from "../status"
import { gt, sameAmount, sessionAmount, sumAmounts, toPlain } from "../money"

export type SessionInfo = {
  id: string
  amount: string
  currency_code: string
  status: PaymentSessionStatus
  data: Record<string, unknown>
  payment_collection_id: string
  cartId: string | null
  orderId: string | null
  orderStatus: string | null
  paymentId: string | null
  /** Captured in full. */
  paymentCapturedAt: string | null
  /** `created_by`: the admin user who captured, null for the money path's captures. */
  captures: SessionCapture[]
  capturedAmount: string
  collectionCapturedAmount: string
}

type Money = { value?: string } | string | number | null | undefined
export type SessionCapture = Pick<CaptureDTO, "id"> & { amount?: unknown; raw_amount?: unknown; created_by?: string | null }
/** What Medusa left out counts 0 (nothing captured); an amount that is not a number makes the sum NaN: never booked. */
const sumOf = (amounts: Money[]): string => {
  const sum = sumAmounts(amounts, "zero")
  return sum ? toPlain(sum) : "NaN"
}

type StoredSession = PaymentSessionDTO & {
  raw_amount?: Money
  payment_collection?: (PaymentCollectionDTO & { raw_captured_amount?: Money }) | null
}

export async function loadSession(
  container: MedusaContainer,
  sessionId: string,
  known: { orderId?: string | null; cartId?: string | null } = {}
): Promise<SessionInfo | null> {
  const [session] = (await container.resolve(Modules.PAYMENT).listPaymentSessions(
    { id: sessionId },
    {
      // only what the money path reads: hydrating whole payments and collections costs a webhook ~1 ms
      select: [
        "id",
        "amount",
        "raw_amount",
        "currency_code",
        "status",
        "data",
        "payment_collection_id",
        "payment.id",
        "payment.captured_at",
        "payment.captures.id",
        "payment.captures.raw_amount",
        "payment.captures.created_by",
        "payment_collection.id",
        "payment_collection.raw_captured_amount",
      ],
      relations: ["payment", "payment.captures", "payment_collection"],
    }
  )) as StoredSession[]
  if (!session) {
    return null
  }
  const links = known.orderId
    ? { cartId: known.cartId ?? null, orderId: known.orderId, orderStatus: await orderStatusOf(container, known.orderId) }
    : await linksOfCollection(container, session.payment_collection_id)
  const captures = (session.payment?.captures ?? []) as SessionCapture[]
  const capturedAt: Date | string | null | undefined = session.payment?.captured_at
  return {
    id: session.id,
    amount: sumOf([session.raw_amount ?? (session.amount as Money)]),
    currency_code: session.currency_code,
    status: session.status,
    data: session.data ?? {},
    payment_collection_id: session.payment_collection_id,
    cartId: links.cartId,
    orderId: links.orderId,
    orderStatus: links.orderId && !links.orderStatus ? await orderStatusOf(container, links.orderId) : links.orderStatus,
    paymentId: session.payment?.id ?? null,
    paymentCapturedAt: capturedAt instanceof Date ? capturedAt.toISOString() : (capturedAt ?? null),
    captures,
    capturedAmount: sumOf(captures.map((c) => c.raw_amount as Money)),
    collectionCapturedAmount: sumOf([session.payment_collection?.raw_captured_amount]),
  }
}

/** A row this young may belong to a session still being created (a caller's transaction not yet committed). */
export const LOST_SESSION_MIN_AGE_MS = 60_000

/**
 * Open pay-ins whose payment session Medusa does not hold: the service made the pay-in but Medusa's
 * session creation failed after it (PostgreSQL restarting: soak seed 1) and removed the session. No
 * shopper saw those details, so they are marked like a session Medusa deleted: nothing waits for
 * them (an order's end, pay again, the expired notification) and money paid into one is stray.
 * `createdBefore`: only rows created before it (default: LOST_SESSION_MIN_AGE_MS ago).
 */
export async function markLostSessions<T extends Pick<LedgerRow, "id" | "session_id" | "session_deleted_at" | "status" | "created_at">>(
  container: MedusaContainer,
  rows: T[],
  createdBefore = new Date(Date.now() - LOST_SESSION_MIN_AGE_MS)
): Promise<T[]> {
  const candidates = rows.filter(
    (r) => r.session_id && !r.session_deleted_at && (OPEN_STATUSES as readonly string[]).includes(r.status) && new Date(r.created_at as Date) < createdBefore
  )
  if (!candidates.length) return rows
  const held = await container.resolve(Modules.PAYMENT).listPaymentSessions({ id: candidates.map((r) => r.session_id!) }, { select: ["id"] })
  const found = new Set(held.map((x) => x.id))
  const lost = candidates.filter((r) => !found.has(r.session_id!))
  if (!lost.length) return rows
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const at = new Date()
  for (const row of lost) {
    await payin.ledger.markSessionDeletedIfCurrent(row.id, row.session_id!, "payment session not held by Medusa (its creation failed after the pay-in was made)")
  }
  const ids = new Set(lost.map((r) => r.id))
  return rows.map((r) => (ids.has(r.id) ? { ...r, session_deleted_at: at } : r))
}

export async function orderStatusOf(container: MedusaContainer, orderId: string): Promise<string | null> {
  const [order] = await container.resolve(Modules.ORDER).listOrders({ id: orderId }, { select: ["id", "status"] })
  return order?.status ?? null
}

export function capturedOf(payment: { captures?: { raw_amount?: unknown; amount?: unknown }[] | null } | null | undefined): string {
  return sumOf((payment?.captures ?? []).map((c) => (c.raw_amount ?? c.amount) as Money))
}

export async function resolveCollection(
  container: MedusaContainer,
  collectionId: string | null
): Promise<{ cart_id: string | null; order_id: string | null }> {
  if (!collectionId) return { cart_id: null, order_id: null }
  const { cartId, orderId } = await linksOfCollection(container, collectionId)
  return { cart_id: cartId, order_id: orderId }
}

/** The Payment outlives its session when completion's compensation replaced the session. */
export async function capturedOfSessionPayment(container: MedusaContainer, sessionId: string): Promise<string> {
  const { data } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: "payment",
    fields: ["id", "captures.raw_amount"],
    filters: { payment_session_id: sessionId },
  })
  const payment = data[0] as { captures?: { raw_amount?: Money }[] } | undefined
  return payment ? sumOf((payment.captures ?? []).map((c) => c.raw_amount)) : "0"
}

/** Same amount as the collection: a pay-in of an earlier cart state asked another, and stays a stray payment. */
export async function orderAwaitingPayment(
  container: MedusaContainer,
  row: { order_id?: string | null; payment_collection_id?: string | null; amount: unknown; raw_amount?: { value?: unknown } | null; currency_code: string },
  session: SessionInfo | null
): Promise<string | null> {
  if (!row.payment_collection_id) return null
  // with no session to read it from, the order the pay-in's collection belongs to: the ledger's link
  // is missing when order.placed was lost (soak seed 1, 30 minutes: a late payment's new session
  // Medusa never saved, the row unlinked: flagged stray, the order left awaiting)
  const orderId = session?.orderId ?? row.order_id ?? (await linksOfCollection(container, row.payment_collection_id)).orderId
  if (!orderId) return null
  const status = session?.orderId ? session.orderStatus : await orderStatusOf(container, orderId)
  if (!status || status === "canceled") return null
  const [collection] = (await container.resolve(Modules.PAYMENT).listPaymentCollections(
    { id: row.payment_collection_id },
    { select: ["id", "amount", "raw_amount", "captured_amount", "raw_captured_amount"] }
  )) as (PaymentCollectionDTO & { raw_amount?: Money; raw_captured_amount?: Money })[]
  if (!collection || gt(sumOf([collection.raw_captured_amount]), 0)) return null
  return sameAmount(sessionAmount(row), sumOf([collection.raw_amount]), row.currency_code) ? orderId : null
}
