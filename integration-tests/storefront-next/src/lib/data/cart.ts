"use server"

import { sdk } from "@lib/config"
import { HttpTypes } from "@medusajs/types"
import { payinErrorOf } from "medusa-plugin-payin-storefront"
import { revalidatePath } from "next/cache"
import { redirect } from "next/navigation"
import { getCartId, removeCartId, setCartId } from "./cookies"
import { getRegion } from "./regions"

// The starter's cart actions, shortened: no auth headers, and no fetch cache, so instead of
// revalidating cache tags each change re-renders the current page.
const rerender = () => revalidatePath("/", "layout")

export async function retrieveCart(cartId?: string) {
  const id = cartId || (await getCartId())

  if (!id) {
    return null
  }

  return await sdk.store.cart
    .retrieve(id, {
      fields: "*items, *region, +shipping_methods.name, *payment_collection.payment_sessions",
    })
    .then(({ cart }) => cart)
    .catch(() => null)
}

export async function addToCart({
  variantId,
  quantity,
  countryCode,
}: {
  variantId: string
  quantity: number
  countryCode: string
}) {
  const region = await getRegion(countryCode)

  if (!region) {
    throw new Error(`Region not found for country code: ${countryCode}`)
  }

  let cart = await retrieveCart()

  if (!cart || cart.completed_at) {
    cart = (await sdk.store.cart.create({ region_id: region.id })).cart
    await setCartId(cart.id)
  }

  await sdk.store.cart.createLineItem(cart.id, { variant_id: variantId, quantity })
  rerender()
}

export async function setAddresses(formData: FormData) {
  const cartId = await getCartId()

  if (!cartId) {
    throw new Error("No existing cart found when setting addresses")
  }

  const address = {
    first_name: String(formData.get("shipping_address.first_name")),
    last_name: String(formData.get("shipping_address.last_name")),
    address_1: String(formData.get("shipping_address.address_1")),
    city: String(formData.get("shipping_address.city")),
    postal_code: String(formData.get("shipping_address.postal_code")),
    country_code: String(formData.get("shipping_address.country_code")),
  }

  await sdk.store.cart.update(cartId, {
    email: String(formData.get("email")),
    shipping_address: address,
    billing_address: address,
  })
  rerender()
}

export async function setShippingMethod(formData: FormData) {
  const cartId = await getCartId()

  if (!cartId) {
    throw new Error("No existing cart found when setting the shipping method")
  }

  await sdk.store.cart.addShippingMethod(cartId, {
    option_id: String(formData.get("shipping_method_id")),
  })
  rerender()
}

export async function initiatePaymentSession(
  cart: HttpTypes.StoreCart,
  data: HttpTypes.StoreInitializePaymentSession
) {
  return sdk.store.payment
    .initiatePaymentSession(cart, data)
    .then((resp) => {
      rerender()
      return resp
    })
    .catch((e: unknown) => ({ error: payinErrorOf(e) })) // returned: a production build hides thrown messages
}

/**
 * Places an order for a cart. If no cart ID is provided, it will use the cart ID from the cookies.
 * @param cartId - optional - The ID of the cart to place an order for.
 * @returns The cart object if the order was successful, or null if not.
 */
export async function placeOrder(cartId?: string) {
  const id = cartId || (await getCartId())

  if (!id) {
    throw new Error("No existing cart found when placing an order")
  }

  const cartRes = await sdk.store.cart.complete(id)

  if (cartRes?.type === "order") {
    const countryCode =
      cartRes.order.shipping_address?.country_code?.toLowerCase()

    await removeCartId()
    redirect(`/${countryCode}/order/${cartRes?.order.id}/confirmed`)
  }

  return cartRes.cart
}
