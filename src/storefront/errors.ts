import { splitCode } from "../error-code"

/** What a storefront needs of a failed call: the plugin's code (when it gave one) and the text. */
export type PayinError = {
  /** `payin_requisites_unavailable`, `payin_unavailable`, `payin_invalid_data`, … or null. */
  code: string | null
  /** The server's message without the trailing code. */
  message: string
  /** HTTP status when known. */
  status: number | null
}

/**
 * The code and message of any error from the store API: a {@link PayinStoreApiError}, the
 * js-sdk's `FetchError` (which keeps only the message, so the code is read from its end: the
 * plugin writes " (payin_…)" there), a plain `{ code, message }` or anything else. Use it in a
 * server action that must return the error rather than throw (production Next.js hides thrown
 * messages from the browser):
 *
 * @example
 * .catch((e) => ({ error: payinErrorOf(e) }))
 */
export function payinErrorOf(error: unknown): PayinError {
  if (!error || typeof error !== "object") {
    return { code: null, message: typeof error === "string" && error ? error : "Unknown error", status: null }
  }
  const e = error as { code?: unknown; message?: unknown; status?: unknown }
  const raw = typeof e.message === "string" && e.message ? e.message : "Unknown error"
  const { code: fromMessage, text } = splitCode(raw)
  const code = typeof e.code === "string" && /^payin_[a-z_]+$/.test(e.code) ? e.code : fromMessage
  return { code, message: text, status: typeof e.status === "number" ? e.status : null }
}
