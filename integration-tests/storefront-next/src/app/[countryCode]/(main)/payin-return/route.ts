import { sdk } from "@lib/config"
import { removeCartId } from "@lib/data/cookies"
import { payinReturnOrderId } from "medusa-plugin-payin-storefront"
import { redirect } from "next/navigation"
import { NextRequest } from "next/server"

// The hosted Payment Page sends the shopper back here (the session's success_url
// and failure_url): /[countryCode]/payin-return?cart_id=…
export async function GET(
  request: NextRequest,
  props: { params: Promise<{ countryCode: string }> }
) {
  const { countryCode } = await props.params
  const cartId = request.nextUrl.searchParams.get("cart_id")
  // The order placed from the cart, or placed now when the shopper paid first.
  const orderId = await payinReturnOrderId(sdk, cartId)

  if (!orderId) {
    redirect(`/${countryCode}/checkout?step=payment`)
  }

  // The cart cookie is SameSite=Strict, so this return from another site did not
  // send it; the cart is completed: remove the cookie without reading it.
  await removeCartId()
  redirect(`/${countryCode}/order/${orderId}/confirmed`)
}
