import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"

/** Query answers a linked record as the record, or a list of one. */
type Linked<T> = T | T[] | null | undefined
const one = <T>(linked: Linked<T>): T | undefined => (Array.isArray(linked) ? linked[0] : (linked ?? undefined))

const graph = (container: MedusaContainer) => container.resolve(ContainerRegistrationKeys.QUERY)

export async function orderOfCart(container: MedusaContainer, cartId: string | null | undefined): Promise<string | null> {
  if (!cartId) return null
  const { data } = await graph(container).graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } })
  return (data[0]?.order_id as string | undefined) ?? null
}

export async function cartOfOrder(container: MedusaContainer, orderId: string): Promise<string | null> {
  const { data } = await graph(container).graph({ entity: "order_cart", fields: ["cart_id"], filters: { order_id: orderId } })
  return (data[0]?.cart_id as string | undefined) ?? null
}

export async function collectionsOfOrder(container: MedusaContainer, orderId: string): Promise<string[]> {
  const { data } = await graph(container).graph({
    entity: "order_payment_collection",
    fields: ["payment_collection_id"],
    filters: { order_id: orderId },
  })
  return data.map((l: { payment_collection_id?: string }) => l.payment_collection_id).filter((id): id is string => Boolean(id))
}

/** Through the cart too: the order of a cart just completed may not be linked to the collection yet. */
export async function linksOfCollection(
  container: MedusaContainer,
  collectionId: string
): Promise<{ cartId: string | null; orderId: string | null; orderStatus: string | null }> {
  const { data } = await graph(container).graph({
    entity: "payment_collection",
    fields: ["id", "cart.id", "order.id", "order.status"],
    filters: { id: collectionId },
  })
  const collection = data[0] as { cart?: Linked<{ id?: string }>; order?: Linked<{ id?: string; status?: string }> } | undefined
  const order = one(collection?.order)
  const cartId = one(collection?.cart)?.id ?? null
  const orderId = order?.id ?? (await orderOfCart(container, cartId))
  return { cartId, orderId, orderStatus: order?.id && order.id === orderId ? (order.status ?? null) : null }
}

export const LINK_READS = [
  { entity: "order_cart", fields: ["order_id", "cart_id"] },
  { entity: "order_payment_collection", fields: ["order_id", "payment_collection_id"] },
  { entity: "payment_collection", fields: ["id", "cart.id", "order.id", "order.status"] },
] as const
