"use server"

// added: the pay-in store routes as server actions, so client components (the kit's live
// instructions) can reach them although MEDUSA_BACKEND_URL is server-only.
import { payin } from "@lib/config"
import type { PayinStatusQuery } from "medusa-plugin-payin-storefront"

/** GET /store/payin/status: the order's (or cart's) pay-in, for the order page. */
export async function retrievePayinStatus(query: PayinStatusQuery) {
  return payin.status(query)
}

/** GET /store/payin/banks: the banks and methods the shopper may pick; null when unreachable. */
export async function listPayinBanks(cartId: string) {
  return payin.banks({ cart_id: cartId }).catch(() => null)
}
