import { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { getOrderDetailWorkflow } from "@medusajs/medusa/core-flows"
import type PayinModuleService from "../../../modules/payin/service"
import type { LedgerRow } from "../../../modules/payin/service"
import type { PayinOrderView } from "../../../storefront/types"
import { newestFirst } from "./scope"

/**
 * What the store routes read about carts and orders: only the columns they need (never the
 * cart's email, addresses or items), each record checked against the publishable key's sales
 * channels the way Medusa scopes its own store routes.
 */

type Query = { graph: (config: Record<string, unknown>) => Promise<{ data: any[] }> }

const queryOf = (scope: MedusaContainer) => scope.resolve(ContainerRegistrationKeys.QUERY) as unknown as Query

export type StoreCart = {
  id: string
  currency_code: string
  sales_channel_id: string | null
  payment_collection_id: string | null
  /** Pay-in (and other) providers enabled in the cart's region. */
  region_provider_ids: string[]
}

export async function findCart(scope: MedusaContainer, cartId: string): Promise<StoreCart | null> {
  const { data } = await queryOf(scope).graph({
    entity: "cart",
    fields: [
      "id",
      "currency_code",
      "sales_channel_id",
      "payment_collection.id",
      "region.payment_providers.id",
      "region.payment_providers.is_enabled",
    ],
    filters: { id: cartId },
  })
  const cart = data[0]
  if (!cart) return null
  const providers = (cart.region?.payment_providers ?? []) as ({ id: string; is_enabled?: boolean } | null)[]
  return {
    id: cart.id,
    currency_code: String(cart.currency_code ?? ""),
    sales_channel_id: cart.sales_channel_id ?? null,
    payment_collection_id: cart.payment_collection?.id ?? null,
    region_provider_ids: providers.filter((p) => p && p.is_enabled !== false).map((p) => p!.id),
  }
}

export type StoreOrder = { id: string; sales_channel_id: string | null; payment_collection_ids: string[] }

export async function findOrder(scope: MedusaContainer, orderId: string): Promise<StoreOrder | null> {
  const { data } = await queryOf(scope).graph({
    entity: "order",
    fields: ["id", "sales_channel_id", "payment_collections.id"],
    filters: { id: orderId, is_draft_order: false },
  })
  const order = data[0]
  if (!order) return null
  return {
    id: order.id,
    sales_channel_id: order.sales_channel_id ?? null,
    payment_collection_ids: ((order.payment_collections ?? []) as ({ id: string } | null)[])
      .filter((c): c is { id: string } => Boolean(c))
      .map((c) => c.id),
  }
}

/** The order placed from a cart (the cart–order link), or null. */
export async function orderIdOfCart(scope: MedusaContainer, cartId: string): Promise<string | null> {
  const { data } = await queryOf(scope).graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } })
  return (data[0]?.order_id as string | undefined) ?? null
}

/** The cart an order was placed from, or null. */
export async function cartIdOfOrder(scope: MedusaContainer, orderId: string): Promise<string | null> {
  const { data } = await queryOf(scope).graph({ entity: "order_cart", fields: ["cart_id"], filters: { order_id: orderId } })
  return (data[0]?.cart_id as string | undefined) ?? null
}

/**
 * The order as the storefront may see it. `payment_status` is computed (it is no column), the way
 * Medusa's GET /store/orders/:id computes it: through getOrderDetailWorkflow.
 */
export async function orderView(scope: MedusaContainer, orderId: string): Promise<PayinOrderView> {
  const { result } = await getOrderDetailWorkflow(scope).run({
    input: { order_id: orderId, fields: ["id", "display_id", "status"], filters: { is_draft_order: false } },
  })
  const order = result as unknown as { id: string; display_id?: number | null; status: string; payment_status?: string }
  return {
    id: order.id,
    display_id: typeof order.display_id === "number" ? order.display_id : null,
    status: order.status,
    payment_status: order.payment_status ?? "not_paid",
  }
}

/**
 * The pay-ins of a cart or order: the ledger rows of its payment collections and, for an order, the
 * rows carrying its id; newest first, each once.
 */
export async function ledgerRowsOf(
  payin: PayinModuleService,
  where: { paymentCollectionIds: string[]; orderId?: string | null }
): Promise<LedgerRow[]> {
  const lists = await Promise.all([
    where.paymentCollectionIds.length
      ? payin.queries.list({ paymentCollectionIds: [...new Set(where.paymentCollectionIds)], limit: 50 })
      : { rows: [] as LedgerRow[] },
    where.orderId ? payin.queries.list({ orderId: where.orderId, limit: 50 }) : { rows: [] as LedgerRow[] },
  ])
  return newestFirst(lists.flatMap((l) => l.rows))
}
