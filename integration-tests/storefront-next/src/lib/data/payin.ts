"use server"

import { sdk } from "@lib/config"
import {
  createPayinStoreClient,
  payinErrorOf,
  type PayinStatusQuery,
} from "medusa-plugin-payin-storefront"

// The pay-in plugin's store routes through the starter's sdk (its backend URL,
// publishable key and locale header), as server actions for client components.
const payin = createPayinStoreClient({ sdk })

/** GET /store/payin/status: the order's (or cart's) pay-in; payin is null for other methods. */
export async function retrievePayinStatus(query: PayinStatusQuery) {
  return payin.status(query)
}

/** GET /store/payin/banks: the banks and methods for the cart; null when unreachable. */
export async function listPayinBanks(cartId: string) {
  return payin.banks({ cart_id: cartId }).catch(() => null)
}

/** POST /store/payin/pay-again: new payment details once the order's pay-in ended unpaid. */
export async function payinPayAgain(orderId: string) {
  return payin
    .payAgain({ order_id: orderId })
    .catch((e: unknown) => ({ error: payinErrorOf(e) })) // returned: a production build hides thrown messages
}
