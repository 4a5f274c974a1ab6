/**
 * The store API's answers (`/store/payin/...`) as a storefront receives them. Shared by the routes
 * that produce them and the storefront kit that reads them, so the two cannot drift. Types and the
 * status vocabulary only, so the server and browser bundles can both import it.
 */

import type { ShopperState } from "../status"

// What the shopper is told (`ShopperState`) and when it is final (`FINAL_SHOPPER_STATES`) are
// src/status.ts's: the kit re-exports them under the same names.
export { FINAL_SHOPPER_STATES, type ShopperState } from "../status"

export type PayinRequisiteView = {
  bank: string
  owner_name: string
  /** Account, card or phone number, or a payment link, depending on the method. */
  number: string
  /** Phone number for SBP (the Russian Faster Payments System), when the requisite has one. */
  sbp_number: string | null
}

/** One pay-in as the shopper may see it: nothing secret, nothing of the merchant's side (fees). */
export type PayinStatusView = {
  provider_id: string
  /** The service's transaction id (null while it is being created). */
  payin_id: string | null
  state: ShopperState
  /** The service's own status: active, closed, canceled, dispute, checking, re_calculation (or creating/failed). */
  service_status: string
  final: boolean
  /** Amount to transfer, a 2-decimal string ("1790.00"), and its currency ("RUB"). */
  amount: string
  currency: string
  /** The amount the service credited when it differs from `amount` (after a recalculation). */
  paid_amount: string | null
  method: string | null
  bank: string | null
  /** Where to pay; null once the pay-in can no longer be paid (expired, canceled, failed, paid). */
  requisite: PayinRequisiteView | null
  /** The service's hosted Payment Page; null when there is none or the pay-in is over. */
  payment_page_url: string | null
  created_at: string
  /** End of the payment window (ISO 8601); null when unknown. */
  expires_at: string | null
  /** Seconds until `expires_at` by the server's clock (0 when over or unknown). */
  seconds_left: number
  /** When the money arrived (ISO 8601). */
  paid_at: string | null
}

export type PayinOrderView = {
  id: string
  display_id: number | null
  /** Medusa's order status (pending, completed, canceled, ...). */
  status: string
  /** Medusa's payment status (awaiting, captured, canceled, ...). */
  payment_status: string
}

/** `GET /store/payin/status?cart_id=…` or `?order_id=…` */
export type PayinStatusResponse = {
  cart_id: string | null
  /** The order placed from the cart, when there is one. */
  order: PayinOrderView | null
  /** The current pay-in of the cart or order; null when it has none (another payment method). */
  payin: PayinStatusView | null
  /**
   * Pay again: the order's pay-in ended unpaid and, until `until` (ISO 8601), its shopper may ask
   * for new payment details (POST /store/payin/pay-again). Null otherwise: pay again is off, the
   * grace period ended, the order is paid or canceled, or a pay-in of it is still payable.
   */
  pay_again?: { until: string } | null
  /** The server's clock (ISO 8601), to correct a countdown for a client clock that is off. */
  server_time: string
}

export type PayinBankOption = { name: string; methods: string[] }

/** `GET /store/payin/banks?cart_id=…` (or `?currency_code=…`), optional `provider_id`. */
export type PayinBanksResponse = {
  provider_id: string
  /** Upper-case currency code the list is for. */
  currency: string
  /** False when the merchant account cannot take this currency (banks is then empty). */
  available: boolean
  banks: PayinBankOption[]
  /** Every method offered by at least one of `banks`. */
  methods: string[]
  /** True when the service could not be reached and an older list is served. */
  stale: boolean
  /** When the list was fetched from the service (ISO 8601). */
  fetched_at: string
}

/** An error answer of the store API (Medusa's shape). */
export type PayinStoreError = {
  type: string
  message: string
  code?: string
  fields?: { path: string; message: string }[]
}
