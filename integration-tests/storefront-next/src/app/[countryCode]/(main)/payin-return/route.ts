import { payin, sdk } from "@lib/config"
import { removeCartId } from "@lib/data/cookies"
import { redirect } from "next/navigation"
import { NextRequest } from "next/server"

/**
 * added: the hosted Payment Page sends the shopper back here (the session's success_url and
 * failure_url): /[countryCode]/payin-return?cart_id=…
 */
export async function GET(
  request: NextRequest,
  props: { params: Promise<{ countryCode: string }> }
) {
  const { countryCode } = await props.params
  const cartId = request.nextUrl.searchParams.get("cart_id")

  if (!cartId) {
    redirect(`/${countryCode}`)
  }

  const status = await payin.status({ cart_id: cartId }).catch(() => null)
  let orderId = status?.order?.id

  if (!orderId) {
    // Paid before the order was placed: completing the cart places it (or returns the order the
    // payment's webhook placed meanwhile).
    const result = await sdk.store.cart.complete(cartId).catch(() => null)
    orderId = result?.type === "order" ? result.order.id : undefined
  }

  if (!orderId) {
    // Not paid and not completable (e.g. the window ended): back to the checkout.
    redirect(`/${countryCode}/checkout`)
  }

  // The cart is done. Its cookie is SameSite=Strict, so it was not sent on this return from
  // another site: remove it without reading it.
  await removeCartId()
  redirect(`/${countryCode}/order/${orderId}/confirmed`)
}
