import { createPayinStoreClient, type PayinMedusaSdk } from "./store-client"

/**
 * The order a shopper coming back from the hosted Payment Page belongs to, for a storefront's
 * return route (the session's `success_url` / `failure_url`, `…/payin-return?cart_id=…`):
 *
 * 1. the order already placed from the cart (the shopper placed it first, or the payment's
 *    webhook placed it meanwhile), read from `GET /store/payin/status?cart_id=…`;
 * 2. else the cart is completed now, which places the order when the shopper paid before
 *    placing it (Medusa returns the existing order when one was placed meanwhile);
 * 3. else null: not paid and not completable (e.g. the window ended): send the shopper back to
 *    the checkout.
 *
 * Never throws. The cart's cookie is not read (a SameSite=Strict cookie is not sent on a return
 * from another site): the route removes it once it has an order.
 *
 * @example
 * const orderId = await payinReturnOrderId(sdk, request.nextUrl.searchParams.get("cart_id"))
 */
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
