/**
 * The plugin's store-facing error codes travel twice: as Medusa's `code` in the error body, and at
 * the end of the message as " (payin_…)". Clients that keep only the message, like the js-sdk's
 * `FetchError` (2.21: message, status, statusText), can still tell "pick another bank" from
 * "try again later". This file owns that format: the plugin's provider and store routes write it
 * ({@link withCode}); the storefront kit reads it ({@link splitCode}, `payinErrorOf`). It imports
 * nothing, so the storefront kit can ship it.
 */

/** Codes a shopper-facing storefront may meet (store routes and payment-session creation). */
export const PAYIN_ERROR_CODES = [
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
] as const
export type PayinErrorCode = (typeof PAYIN_ERROR_CODES)[number]

const TRAILING_CODE = /\s*\((payin_[a-z_]+)\)$/

/** `message` ending in " (code)", once. */
export function withCode(message: string, code: string): string {
  const m = TRAILING_CODE.exec(message)
  return m && m[1] === code ? message : `${message} (${code})`
}

/** The code at the end of a message, and the message without it. */
export function splitCode(message: string): { code: string | null; text: string } {
  const m = TRAILING_CODE.exec(message)
  return m ? { code: m[1], text: message.slice(0, m.index) } : { code: null, text: message }
}
