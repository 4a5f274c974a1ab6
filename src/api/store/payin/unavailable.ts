import { MedusaResponse, MedusaStoreRequest } from "@medusajs/framework/http"
import { withCode } from "../../../error-code"
import { LockTimeoutError } from "../../../money-path/lock"
import type { PayinStoreError } from "../../../storefront/types"

export const STORE_RETRY_AFTER_SECONDS = 5

const ANSWERS = {
  payin_busy: "Another request for this order is being answered; ask again in a few seconds",
  payin_store_unavailable: "The store cannot answer this right now (its database is restarting); ask again in a few seconds",
} as const
export type StoreUnavailableCode = keyof typeof ANSWERS

// PostgreSQL's connection and shutdown classes (08, 57P0x) and the pool's and driver's words for a database gone away
const DB_GONE_CODES = /^(08\d{3}|57P0[1-3]|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT)$/
const DB_GONE_TEXT =
  /Connection terminated|terminating connection|the database system is (starting up|shutting down|in recovery mode)|Timeout acquiring a connection|timeout exceeded when trying to connect|connect ECONNREFUSED|Connection ended unexpectedly|Client has encountered a connection error/i

// Medusa's session replacement when a delete of an old session failed (it logs the cause and compensates):
// the database going away under it (soak seed 1, 50 minutes: pay again answered 500)
const SESSIONS_NOT_REPLACED = /^Could not delete all payment sessions$/

/** Which 503 an error of the store's own infrastructure earns (null: a real error, left to Medusa's handler). */
export function storeUnavailableCode(error: unknown): StoreUnavailableCode | null {
  if (error instanceof LockTimeoutError) return "payin_busy"
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown }
    if (typeof code === "string" && DB_GONE_CODES.test(code)) return "payin_store_unavailable"
    if (typeof message === "string" && (DB_GONE_TEXT.test(message) || SESSIONS_NOT_REPLACED.test(message))) return "payin_store_unavailable"
  }
  return null
}

/**
 * A plugin store route that answers 503 with a code and Retry-After, never Medusa's 500
 * `unknown_error`, when the store's database is gone or another request holds the order (soak
 * seed 1, 30 minutes: pay again answered 500 while a killed server's lock was held).
 */
export function storeRoute<R extends MedusaStoreRequest>(handler: (req: R, res: MedusaResponse) => Promise<void>) {
  return async (req: R, res: MedusaResponse): Promise<void> => {
    try {
      await handler(req, res)
    } catch (error) {
      const code = storeUnavailableCode(error)
      if (!code || res.headersSent) throw error
      const body: PayinStoreError = { type: "payin_unavailable", code, message: withCode(ANSWERS[code], code) }
      res.setHeader("Retry-After", String(STORE_RETRY_AFTER_SECONDS))
      res.status(503).json(body)
    }
  }
}
