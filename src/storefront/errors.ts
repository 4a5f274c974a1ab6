import { splitCode } from "../error-code"

/** What a storefront needs of a failed call: the plugin's code (when it gave one) and the text. */
export type PayinError = {
  code: string | null
  /** The server's message without the trailing code. */
  message: string
  status: number | null
}

/** For the js-sdk's `FetchError`, which keeps only the message, the code is read from the message's end. */
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
