import { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { getOrderDetailWorkflow } from "@medusajs/medusa/core-flows"
import type PayinModuleService from "../../../modules/payin/service"
import type { LedgerRow } from "../../../modules/payin/service"
import type { PayinOrderView } from "../../../storefront/types"
import { newestFirst } from "./scope"

// Only the columns the routes need (never the cart's email, addresses or items), scoped to the key's sales channels as Medusa scopes its own store routes.

const queryOf = (scope: MedusaContainer) => scope.resolve(ContainerRegistrationKeys.QUERY)

export type StoreCart = {
  id: string
  currency_code: string
  sales_channel_id: string | null
  payment_collection_id: string | null
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

export { cartOfOrder as cartIdOfOrder, orderOfCart as orderIdOfCart } from "../../../medusa"

/** `payment_status` is no column: computed through getOrderDetailWorkflow, as Medusa's GET /store/orders/:id does. */
export async function orderView(scope: MedusaContainer, orderId: string): Promise<PayinOrderView> {
  const { result } = await getOrderDetailWorkflow(scope).run({
    input: { order_id: orderId, fields: ["id", "display_id", "status"], filters: { is_draft_order: false } },
  })
  const order: { id: string; display_id?: number | null; status: string; payment_status?: string } = result
  return {
    id: order.id,
    display_id: typeof order.display_id === "number" ? order.display_id : null,
    status: order.status,
    payment_status: order.payment_status ?? "not_paid",
  }
}

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
