/**
 * The plugin's error codes travel twice: as Medusa's `code` in the error body, and at
 * the end of the message as " (payin_…)". Clients that keep only the message, like the js-sdk's
 * `FetchError` (2.21: message, status, statusText), can still tell "pick another bank" from
 * "try again later". The format is written and read here only: the plugin's provider and store
 * routes write it ({@link withCode}); the storefront kit reads it ({@link splitCode},
 * `payinErrorOf`) and shows it ({@link appendCode}, in its messages). It imports nothing, so the
 * storefront kit can ship it.
 */

/**
 * Every code the plugin puts on an error (`payinError` in the provider, the store routes). One
 * list: `PayinErrorCode` is its union, so a code not listed here does not compile. Documented in
 * src/api/README.md (Error codes).
 */
export const PAYIN_ERROR_CODES = [
  // a shopper may meet these: payment-session creation and the store routes
  "payin_requisites_unavailable",
  "payin_unavailable",
  "payin_not_configured",
  "payin_rejected",
  "payin_invalid_data",
  "payin_already_paid",
  "payin_amount_mismatch",
  "payin_amount_immutable",
  /** Too many pay-ins were requested for one payment collection (cart) in a short time. */
  "payin_too_many_attempts",
  // POST /store/payin/pay-again refused (409)
  "payin_pay_again_off",
  "payin_grace_over",
  "payin_order_paid",
  "payin_order_canceled",
  "payin_not_this_provider",
  // the merchant's: Medusa's capture, cancel and refund of a pay-in's payment (admin, workflows)
  "payin_not_paid",
  "payin_not_capturable",
  "payin_capture_exceeds_received",
  "payin_paid",
  "payin_refund_unsupported",
  "payin_refund_without_order",
] as const
export type PayinErrorCode = (typeof PAYIN_ERROR_CODES)[number]

const TRAILING_CODE = /\s*\((payin_[a-z_]+)\)$/

/** `message` ending in " (code)", once: what the plugin's provider and routes send. */
export function withCode(message: string, code: PayinErrorCode): string {
  return appendCode(message, code)
}

/**
 * The same format for a code read back from an answer (the kit's messages): any string, since a
 * newer server may send a code this version does not list.
 */
export function appendCode(message: string, code: string): string {
  const m = TRAILING_CODE.exec(message)
  return m && m[1] === code ? message : `${message} (${code})`
}

/** The code at the end of a message, and the message without it. */
export function splitCode(message: string): { code: string | null; text: string } {
  const m = TRAILING_CODE.exec(message)
  return m ? { code: m[1], text: message.slice(0, m.index) } : { code: null, text: message }
}
