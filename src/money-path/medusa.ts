import { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { type SessionAmountRow, add, gt, parseDecimal, sameAmount, sessionAmount, toPlain } from "../money"
import { CAPTURED_ON_AUTHORIZE_MARK } from "../providers/payin/answer"
import { REATTACH_PAID_KEY } from "../providers/payin/creation"

/** What the money path reads of Medusa about a payment session: its collection, cart, order, payment. */
export type SessionInfo = {
  id: string
  amount: unknown
  payment_collection_id: string
  cartId: string | null
  orderId: string | null
  /** The order's status, when the order was found through the collection (null otherwise: ask loadOrder). */
  orderStatus: string | null
  /** Medusa's Payment of the session (made when the session was authorized), or null. */
  paymentId: string | null
  /** When Medusa's payment of the session was captured in full (null while nothing or part is). */
  paymentCapturedAt: string | null
  /** The captures of the session's payment (`created_by`: the user who captured from the admin, null for the money path's). */
  captures: SessionCapture[]
  /** What Medusa captured of the session's payment so far: the sum of its captures ("0" without any). */
  capturedAmount: string
  /** What Medusa captured on the session's payment collection (all its payments). */
  collectionCapturedAmount: string
}

type Money = { value?: string } | string | number | null | undefined
export type SessionCapture = { id: string; amount?: unknown; raw_amount?: unknown; created_by?: string | null }
const ZERO = { units: 0n, scale: 0 }
/** Medusa's amounts summed exactly; one that is not a number makes the sum NaN (never booked). */
const sumOf = (amounts: Money[]): string => {
  let sum = ZERO
  for (const a of amounts) {
    const value = parseDecimal(a ?? 0) ?? (a && typeof a === "object" && a.value === undefined ? ZERO : null)
    if (value === null) return "NaN"
    sum = add(sum, value)
  }
  return toPlain(sum)
}

type Query = { graph: (config: Record<string, unknown>) => Promise<{ data: any[] }> }
const queryOf = (container: MedusaContainer) => container.resolve(ContainerRegistrationKeys.QUERY) as unknown as Query

type PaymentModule = {
  listPaymentSessions(filters: Record<string, unknown>, config: Record<string, unknown>): Promise<unknown[]>
}
type OrderModule = { listOrders(filters: Record<string, unknown>, config: Record<string, unknown>): Promise<{ id: string; status: string }[]> }

/**
 * Medusa's session with its payment, captures and collection (the payment module's own read),
 * and the order and cart its collection resolves to. `known` is what the ledger row already holds
 * (the order.placed subscriber links a pay-in to its order): with an order id known, its status is
 * one read of the order module; without one, the collection's links are followed through Query.
 * (One Query across the links for everything costs about 10 ms of CPU per call; these reads 3 ms,
 * on the capture webhook's path.)
 */
export async function loadSession(
  container: MedusaContainer,
  sessionId: string,
  known: { orderId?: string | null; cartId?: string | null } = {}
): Promise<SessionInfo | null> {
  const [session] = (await (container.resolve(Modules.PAYMENT) as unknown as PaymentModule).listPaymentSessions(
    { id: sessionId },
    {
      // only what the money path reads: hydrating whole payments and collections costs a webhook ~1 ms
      select: [
        "id",
        "amount",
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
  )) as {
    id: string
    amount: unknown
    payment_collection_id: string
    payment_collection?: { raw_captured_amount?: Money } | null
    payment?: { id?: string; captured_at?: string | Date | null; captures?: SessionCapture[] } | null
  }[]
  if (!session) {
    return null
  }
  const { cartId, orderId, orderStatus } = known.orderId
    ? {
        cartId: known.cartId ?? null,
        orderId: known.orderId,
        orderStatus: (await orderStatusOf(container, known.orderId)) ?? null,
      }
    : await ordersOfCollection(container, session.payment_collection_id)
  const capturedAt = session.payment?.captured_at ?? null
  return {
    id: session.id,
    amount: session.amount,
    payment_collection_id: session.payment_collection_id,
    cartId,
    orderId,
    orderStatus,
    paymentId: session.payment?.id ?? null,
    paymentCapturedAt: capturedAt instanceof Date ? capturedAt.toISOString() : capturedAt,
    captures: session.payment?.captures ?? [],
    capturedAmount: sumOf((session.payment?.captures ?? []).map((c) => c.raw_amount as Money)),
    collectionCapturedAmount: sumOf([session.payment_collection?.raw_captured_amount]),
  }
}

/** The pay-in whose money path's authorize captured this Payment when it made it (its mark on the Payment's data), or null. */
export function capturedOnAuthorizeOf(payment: { data?: Record<string, unknown> | null } | null | undefined): string | null {
  const mark = payment?.data?.[CAPTURED_ON_AUTHORIZE_MARK]
  return typeof mark === "string" ? mark : null
}

/** An order's status, read through the order module. */
async function orderStatusOf(container: MedusaContainer, orderId: string): Promise<string | undefined> {
  const [order] = await (container.resolve(Modules.ORDER) as unknown as OrderModule).listOrders({ id: orderId }, { select: ["id", "status"] })
  return order?.status
}

/** The cart and order (with its status) a payment collection is linked to: one Query across the links. */
async function ordersOfCollection(
  container: MedusaContainer,
  collectionId: string
): Promise<{ cartId: string | null; orderId: string | null; orderStatus: string | null }> {
  const query = queryOf(container)
  const { data } = await query.graph({
    entity: "payment_collection",
    fields: ["id", "cart.id", "order.id", "order.status"],
    filters: { id: collectionId },
  })
  const collection = data[0] as { cart?: Linked<{ id?: string }>; order?: Linked<{ id?: string; status?: string }> } | undefined
  const order = one(collection?.order)
  const cartId = one(collection?.cart)?.id ?? null
  let orderId = order?.id ?? null
  if (!orderId && cartId) {
    // a cart completed into an order whose collection link is not written yet
    const { data: orderCarts } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } })
    orderId = (orderCarts[0] as { order_id?: string } | undefined)?.order_id ?? null
  }
  return { cartId, orderId, orderStatus: order?.id === orderId ? (order?.status ?? null) : null }
}

/** A linked record as Query answers it: the record, or a list of one. */
type Linked<T> = T | T[] | null | undefined
const one = <T>(linked: Linked<T>): T | undefined => (Array.isArray(linked) ? linked[0] : (linked ?? undefined))

/** What a Payment's captures sum to (Medusa's answer to a capture: the payment with its captures). */
export function capturedOf(payment: { captures?: { raw_amount?: unknown; amount?: unknown }[] | null } | null | undefined): string {
  return sumOf((payment?.captures ?? []).map((c) => (c.raw_amount ?? c.amount) as Money))
}

/** The cart and order a payment collection resolves to (for flags on pay-ins whose session is gone). */
export async function resolveCollection(
  container: MedusaContainer,
  collectionId: string | null
): Promise<{ cart_id: string | null; order_id: string | null }> {
  if (!collectionId) return { cart_id: null, order_id: null }
  const query = queryOf(container)
  const [{ data: carts }, { data: orders }] = await Promise.all([
    query.graph({ entity: "cart_payment_collection", fields: ["cart_id"], filters: { payment_collection_id: collectionId } }),
    query.graph({ entity: "order_payment_collection", fields: ["order_id"], filters: { payment_collection_id: collectionId } }),
  ])
  const cartId = (carts[0] as { cart_id?: string } | undefined)?.cart_id ?? null
  let orderId = (orders[0] as { order_id?: string } | undefined)?.order_id ?? null
  if (!orderId && cartId) {
    const { data } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } })
    orderId = (data[0] as { order_id?: string } | undefined)?.order_id ?? null
  }
  return { cart_id: cartId, order_id: orderId }
}

/** An order's status (its payment status is not a column: read the payment collection's amounts instead). */
export async function loadOrder(container: MedusaContainer, orderId: string): Promise<{ id: string; status: string } | null> {
  const { data } = await queryOf(container).graph({ entity: "order", fields: ["id", "status"], filters: { id: orderId } })
  return (data[0] as { id: string; status: string }) ?? null
}

/** The order placed from a cart, or null. */
export async function orderOfCart(container: MedusaContainer, cartId: string | null): Promise<string | null> {
  if (!cartId) return null
  const { data } = await queryOf(container).graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } })
  return (data[0] as { order_id?: string } | undefined)?.order_id ?? null
}

/** The Payment Medusa made for a session (it outlives the session when completion's compensation replaced it). */
export async function paymentOfSession(
  container: MedusaContainer,
  sessionId: string
): Promise<{ id: string; captured_at: string | null; captured_amount: string } | null> {
  const { data } = await queryOf(container).graph({
    entity: "payment",
    fields: ["id", "captured_at", "captures.raw_amount"],
    filters: { payment_session_id: sessionId },
  })
  const payment = data[0] as { id: string; captured_at: string | null; captures?: { raw_amount?: Money }[] } | undefined
  return payment
    ? { id: payment.id, captured_at: payment.captured_at, captured_amount: sumOf((payment.captures ?? []).map((c) => c.raw_amount)) }
    : null
}

/**
 * The order a paid pay-in whose session is gone or that the store ended may still be captured
 * for: linked to it, not canceled, nothing of its payment collection captured, and the pay-in for
 * the amount the collection asks (pay again asks the same; a pay-in of an earlier cart state asked
 * another, and stays a stray payment). Null otherwise.
 */
export async function orderAwaitingPayment(
  container: MedusaContainer,
  row: { order_id?: string | null; payment_collection_id?: string | null; amount: unknown; raw_amount?: { value?: unknown } | null; currency_code: string },
  session: SessionInfo | null
): Promise<string | null> {
  const orderId = session?.orderId ?? row.order_id ?? null
  if (!orderId || !row.payment_collection_id) return null
  const status = session?.orderStatus ?? (await orderStatusOf(container, orderId))
  if (!status || status === "canceled") return null
  const payments = container.resolve(Modules.PAYMENT) as unknown as {
    listPaymentCollections(filters: Record<string, unknown>, config: Record<string, unknown>): Promise<{ raw_amount?: Money; raw_captured_amount?: Money }[]>
  }
  const [collection] = await payments.listPaymentCollections(
    { id: row.payment_collection_id },
    { select: ["id", "amount", "raw_amount", "captured_amount", "raw_captured_amount"] }
  )
  if (!collection || gt(sumOf([collection.raw_captured_amount]), 0)) return null
  return sameAmount(sessionAmount(row as SessionAmountRow), sumOf([collection.raw_amount]), row.currency_code) ? orderId : null
}

/**
 * A new payment session on the pay-in's payment collection that takes its late payment: the
 * provider re-attaches the paid pay-in to it (REATTACH_PAID_KEY; nothing is asked of the
 * service), so Medusa authorizes and captures it like any session of the order.
 */
export async function sessionForLatePayment(
  container: MedusaContainer,
  row: { id: string; provider_id: string; payment_collection_id?: string | null; currency_code: string; amount: unknown; cart_id?: string | null },
  orderId: string
): Promise<SessionInfo | null> {
  const payments = container.resolve(Modules.PAYMENT) as unknown as {
    createPaymentSession(collectionId: string, input: Record<string, unknown>): Promise<{ id: string }>
  }
  const created = await payments.createPaymentSession(row.payment_collection_id!, {
    provider_id: row.provider_id,
    currency_code: row.currency_code,
    amount: row.amount,
    data: { [REATTACH_PAID_KEY]: row.id },
  })
  return loadSession(container, created.id, { orderId, cartId: row.cart_id ?? null })
}
