import Medusa from "@medusajs/js-sdk"
import { createPayinStoreClient } from "medusa-plugin-payin-storefront" // added

// Defaults to standard port for Medusa server
let MEDUSA_BACKEND_URL = "http://localhost:9000"

if (process.env.MEDUSA_BACKEND_URL) {
  MEDUSA_BACKEND_URL = process.env.MEDUSA_BACKEND_URL
}

export const sdk = new Medusa({
  baseUrl: MEDUSA_BACKEND_URL,
  debug: process.env.NODE_ENV === "development",
  publishableKey: process.env.NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY,
})

// added: the pay-in store routes (/store/payin/status, /store/payin/banks) through the same sdk,
// on the server (MEDUSA_BACKEND_URL is server-only)
export const payin = createPayinStoreClient({
  request: (path, query) => sdk.client.fetch(path, { query }),
})
