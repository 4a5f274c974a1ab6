// Codes also end the message, " (payin_…)", for clients that keep only the message (the js-sdk's FetchError); no imports, so the storefront kit ships this.

export const PAYIN_ERROR_CODES = [
  "payin_requisites_unavailable",
  "payin_unavailable",
  "payin_not_configured",
  "payin_rejected",
  "payin_invalid_data",
  "payin_already_paid",
  "payin_amount_mismatch",
  "payin_amount_immutable",
  "payin_too_many_attempts",
  "payin_pay_again_off",
  "payin_grace_over",
  "payin_order_paid",
  "payin_order_canceled",
  "payin_not_this_provider",
  "payin_busy",
  "payin_store_unavailable",
  "payin_not_paid",
  "payin_not_capturable",
  "payin_capture_exceeds_received",
  "payin_paid",
  "payin_refund_unsupported",
  "payin_refund_without_order",
] as const
export type PayinErrorCode = (typeof PAYIN_ERROR_CODES)[number]

const TRAILING_CODE = /\s*\((payin_[a-z_]+)\)$/

export function withCode(message: string, code: PayinErrorCode): string {
  return appendCode(message, code)
}

/** Any string: a newer server may send a code this version does not list. */
export function appendCode(message: string, code: string): string {
  const m = TRAILING_CODE.exec(message)
  return m && m[1] === code ? message : `${message} (${code})`
}

export function splitCode(message: string): { code: string | null; text: string } {
  const m = TRAILING_CODE.exec(message)
  return m ? { code: m[1], text: message.slice(0, m.index) } : { code: null, text: message }
}
