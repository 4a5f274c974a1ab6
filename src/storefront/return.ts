import { createPayinStoreClient, type PayinMedusaSdk } from "./store-client"

/** The order placed from the cart, or placed now by completing it when the shopper paid first; null otherwise. Never throws. */
export async function payinReturnOrderId(sdk: PayinMedusaSdk, cartId: string | null | undefined): Promise<string | null> {
  if (!cartId || !/^[\w-]{1,128}$/.test(cartId)) return null
  const status = await createPayinStoreClient({ sdk })
    .status({ cart_id: cartId })
    .catch(() => null)
  if (status?.order?.id) return status.order.id
  const completed = await sdk.store.cart.complete(cartId).catch(() => null)
  if (completed && typeof completed === "object" && (completed as { type?: unknown }).type === "order") {
    const id = (completed as { order?: { id?: unknown } }).order?.id
    if (typeof id === "string" && id) return id
  }
  return null
}
