// Shared by the store routes that produce these answers and the kit that reads them, so the two cannot drift.

import type { ShopperState } from "../status"

export { FINAL_SHOPPER_STATES, type ShopperState } from "../status"

export type PayinRequisiteView = {
  bank: string
  owner_name: string
  number: string
  sbp_number: string | null
}

/** One pay-in as the shopper may see it: nothing secret, nothing of the merchant's side (fees). */
export type PayinStatusView = {
  provider_id: string
  payin_id: string | null
  state: ShopperState
  service_status: string
  final: boolean
  amount: string
  currency: string
  paid_amount: string | null
  method: string | null
  bank: string | null
  requisite: PayinRequisiteView | null
  payment_page_url: string | null
  created_at: string
  expires_at: string | null
  /** Seconds until `expires_at` by the server's clock (0 when over or unknown). */
  seconds_left: number
  paid_at: string | null
}

export type PayinOrderView = {
  id: string
  display_id: number | null
  status: string
  payment_status: string
}

/** `GET /store/payin/status?cart_id=…` or `?order_id=…` */
export type PayinStatusResponse = {
  cart_id: string | null
  order: PayinOrderView | null
  payin: PayinStatusView | null
  /** Set while the shopper may ask for new payment details (`POST /store/payin/pay-again`). */
  pay_again?: { until: string } | null
  /** The server's clock (ISO 8601), to correct a countdown for a client clock that is off. */
  server_time: string
  /**
   * Names what this answer shows (the same while nothing the shopper sees changed, the time left aside):
   * send it back as `since`, with `wait`, to be answered when it changes. Absent from plugins before long polling.
   */
  view_tag?: string
  /** Set when the request asked to wait and the server held it: how long, and whether the view changed meanwhile. */
  long_poll?: { waited_ms: number; changed: boolean }
}

export type PayinBankOption = { name: string; methods: string[] }

/** `GET /store/payin/banks?cart_id=…` (or `?currency_code=…`), optional `provider_id`. */
export type PayinBanksResponse = {
  provider_id: string
  currency: string
  available: boolean
  banks: PayinBankOption[]
  methods: string[]
  stale: boolean
  fetched_at: string
}

export type PayinStoreError = {
  type: string
  message: string
  code?: string
  fields?: { path: string; message: string }[]
}
