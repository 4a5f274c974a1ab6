import type { Pool } from "undici"
import type { z } from "zod"
import { RefusedAddressError, guardedLookup, refusedHostName } from "./address"
import { type Answer, parseAnswer, unwrapList } from "./answer"
import { PayinNotFoundError, PayinServiceError } from "./errors"
import { Bank, BankListSchema, Currency, CurrencyListSchema, PayinRequest, Transaction, TransactionSchema } from "./schemas"
import { sign } from "./signature"
import { DeadlineError, addressError, readCapped, transportError } from "./transport"

export type PayinClientOptions = {
  baseUrl: string
  apiKey: string
  /** Deadline of one HTTP exchange, whole: connecting, the headers and the entire body. */
  timeoutMs?: number
  /** Largest answer body read (bytes); a longer answer fails with PayinResponseTooLargeError. Default 1 MiB. */
  maxResponseBytes?: number
  /**
   * Refuse private, loopback, link-local and other non-public addresses, on the URL's literal host
   * and on every address its name resolves to when connecting (a URL typed in the admin).
   */
  refusePrivateAddresses?: boolean
  /**
   * Quote the service's own `code` and `message` in errors (default). Off for a URL typed in the
   * admin: its answers are not the service's, and errors then say only the status.
   */
  quoteAnswers?: boolean
  /** Send `x-signature` (HMAC-SHA256 of the body keyed with the API key) on requests with a body. */
  signRequests?: boolean
  /** Attempts of an idempotent request (GET) before giving up. */
  getAttempts?: number
  /** Base delay of the exponential backoff between attempts. */
  backoffMs?: number
  /** Attempts of the pay-in POST, each preceded by a lookup when the previous outcome is unknown. */
  createAttempts?: number
  /**
   * A pool of its own, closed by `close()` (one-off clients, e.g. the admin's test connection
   * to a URL being typed in). By default clients share one keep-alive pool per origin.
   */
  ownPool?: boolean
}

/**
 * undici is loaded on the first request, not when the plugin loads: loaded at start-up it was about
 * 2 MB of the 5 MB the plugin added to a Medusa process's live heap, and 0.1 s of its CPU
 * (integration-tests/bench/footprint.bench.ts); a process that never calls the service never pays it.
 */
let undiciModule: typeof import("undici") | undefined
function newPool(origin: string, options: ConstructorParameters<typeof Pool>[1]): Pool {
  undiciModule ??= require("undici") as typeof import("undici")
  return new undiciModule.Pool(origin, options)
}

/** Default cap on an answer's body: the service's answers are a few kilobytes. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024

/** One keep-alive pool per service origin (and address guard), shared by every client of that origin. */
const pools = new Map<string, Pool>()

function poolFor(origin: string, guarded: boolean): Pool {
  const key = `${guarded ? "guarded " : ""}${origin}`
  let pool = pools.get(key)
  if (!pool) {
    pool = newPool(origin, { connections: 64, keepAliveTimeout: 30_000, pipelining: 1, ...guard(guarded) })
    pools.set(key, pool)
  }
  return pool
}

/** Connections of a guarded pool resolve names through the address check. */
function guard(guarded: boolean): { connect?: { lookup: typeof guardedLookup } } {
  return guarded ? { connect: { lookup: guardedLookup } } : {}
}

/** Closes every pool (tests and graceful shutdown). */
export async function closePayinPools(): Promise<void> {
  const all = [...pools.values()]
  pools.clear()
  await Promise.all(all.map((p) => p.close().catch(() => undefined)))
}

/**
 * HTTP client of the Merchant Payment Service. Every call has an overall deadline and a cap on
 * the answer's size; GETs retry with exponential backoff and jitter; answers are parsed with the
 * shared zod schemas (a malformed answer is a typed error, never a crash); the pay-in POST is
 * never re-sent without first looking the pay-in up by its externalTransactionId.
 */
export class PayinClient {
  private readonly origin: string
  private readonly prefix: string
  private readonly apiKey: string
  private readonly timeoutMs: number
  private readonly signRequests: boolean
  private readonly getAttempts: number
  private readonly backoffMs: number
  private readonly createAttempts: number
  private readonly maxResponseBytes: number
  private readonly guarded: boolean
  /** Why the URL's host is refused outright (a refused literal address or name), for a guarded client. */
  private readonly refusedHost: string | null
  private readonly quoteAnswers: boolean
  private readonly ownPool: Pool | null

  constructor(options: PayinClientOptions) {
    const url = new URL(options.baseUrl)
    this.origin = url.origin
    this.prefix = url.pathname.replace(/\/+$/, "")
    this.apiKey = options.apiKey
    this.timeoutMs = options.timeoutMs ?? 15_000
    this.signRequests = options.signRequests ?? true
    this.getAttempts = Math.max(1, options.getAttempts ?? 3)
    this.backoffMs = options.backoffMs ?? 200
    this.createAttempts = Math.max(1, options.createAttempts ?? 3)
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    this.guarded = options.refusePrivateAddresses ?? false
    // literal addresses never go through a lookup: they are checked here
    this.refusedHost = this.guarded ? refusedHostName(url.hostname) : null
    this.quoteAnswers = options.quoteAnswers ?? true
    this.ownPool = options.ownPool
      ? newPool(this.origin, { connections: 4, keepAliveTimeout: 5_000, ...guard(this.guarded) })
      : null
  }

  /** Closes the client's own pool (a no-op for clients on the shared per-origin pools). */
  async close(): Promise<void> {
    await this.ownPool?.close().catch(() => undefined)
  }

  /** POST /payment/trading/pay-in, once. Throws a typed error; `ambiguous` ones may have taken effect. */
  async createPayInOnce(body: PayinRequest): Promise<Transaction> {
    const res = await this.send("POST", "/payment/trading/pay-in", JSON.stringify(body))
    return parseAnswer(res, TransactionSchema, "POST", "/payment/trading/pay-in", this.quoteAnswers)
  }

  /**
   * Creates the pay-in for `externalId` (its `extra.externalTransactionId`) at most once: when the
   * outcome of a POST is unknown (timeout, reset, 5xx) or the service reports the external id as
   * taken, the pay-in is looked up by external id, and the POST is sent again only when the
   * service has none.
   */
  async createPayIn(body: PayinRequest, externalId: string): Promise<Transaction> {
    let lastError: unknown
    for (let attempt = 1; attempt <= this.createAttempts; attempt++) {
      if (attempt > 1) {
        await this.pause(attempt - 1)
        const existing = await this.findByExternalId(externalId)
        if (existing) {
          return existing
        }
      }
      try {
        return await this.createPayInOnce(body)
      } catch (error) {
        lastError = error
        if (error instanceof PayinServiceError && error.kind === "duplicate_external_id") {
          const existing = await this.findByExternalId(externalId)
          if (existing) {
            return existing
          }
          throw error
        }
        if (!(error instanceof PayinServiceError) || !error.ambiguous) {
          throw error
        }
      }
    }
    // The last POST's outcome is unknown: one more look before giving up.
    const existing = await this.findByExternalId(externalId).catch(() => null)
    if (existing) {
      return existing
    }
    throw lastError
  }

  /** GET /payment/trading/{id}. */
  async getTransaction(id: string): Promise<Transaction> {
    const path = `/payment/trading/${encodeURIComponent(id)}`
    return this.get(path, TransactionSchema)
  }

  /** GET /payment/trading/external/{id}. */
  async getTransactionByExternalId(externalId: string): Promise<Transaction> {
    const path = `/payment/trading/external/${encodeURIComponent(externalId)}`
    return this.get(path, TransactionSchema)
  }

  /** The pay-in with this external id, or null when the service has none. */
  async findByExternalId(externalId: string): Promise<Transaction | null> {
    try {
      return await this.getTransactionByExternalId(externalId)
    } catch (error) {
      if (error instanceof PayinNotFoundError) {
        return null
      }
      throw error
    }
  }

  /**
   * Looks a pay-in up: by the service's id when known, else by the merchant's external id (the
   * payment session it was created for). Null when the service has none (404).
   */
  async lookUp(ref: { id?: string | null; externalId?: string | null }): Promise<Transaction | null> {
    if (ref.id) {
      try {
        return await this.getTransaction(ref.id)
      } catch (error) {
        if (error instanceof PayinNotFoundError) return null
        throw error
      }
    }
    return ref.externalId ? this.findByExternalId(ref.externalId) : null
  }

  /** GET /payment/trading/banks (the sandbox's shape; other shapes are unwrapped when possible). */
  async listBanks(): Promise<Bank[]> {
    return this.get("/payment/trading/banks", unwrapList(BankListSchema))
  }

  /** GET /payment/trading/currency. */
  async listCurrencies(): Promise<Currency[]> {
    return this.get("/payment/trading/currency", unwrapList(CurrencyListSchema))
  }

  private async get<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>> {
    let lastError: unknown
    for (let attempt = 1; attempt <= this.getAttempts; attempt++) {
      if (attempt > 1) {
        await this.pause(attempt - 1)
      }
      try {
        const res = await this.send("GET", path)
        return parseAnswer(res, schema, "GET", path, this.quoteAnswers)
      } catch (error) {
        lastError = error
        if (!(error instanceof PayinServiceError) || !error.retryable) {
          throw error
        }
      }
    }
    throw lastError
  }

  private pause(retry: number): Promise<void> {
    const base = this.backoffMs * 2 ** (retry - 1)
    const delay = base / 2 + Math.random() * base // jitter: 50%..150% of the base
    return new Promise((resolve) => setTimeout(resolve, delay))
  }

  private async send(method: "GET" | "POST", path: string, body?: string): Promise<Answer> {
    if (this.refusedHost) {
      throw addressError(new RefusedAddressError(this.refusedHost), method, path)
    }
    const headers: Record<string, string> = { accept: "application/json", "x-api-key": this.apiKey }
    if (body !== undefined) {
      headers["content-type"] = "application/json"
      if (this.signRequests) {
        headers["x-signature"] = sign(body, this.apiKey)
      }
    }
    const fullPath = this.prefix + path
    // undici's headersTimeout / bodyTimeout are idle timers (a server sending a byte a second never
    // trips them): one deadline covers connecting, the headers and the whole body.
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(new DeadlineError()), this.timeoutMs)
    try {
      const res = await (this.ownPool ?? poolFor(this.origin, this.guarded)).request({
        method,
        path: fullPath,
        headers,
        body,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: deadline.signal,
      })
      const text = await readCapped(res, this.maxResponseBytes, method, path)
      return { status: res.statusCode, text }
    } catch (error) {
      if (error instanceof PayinServiceError) throw error
      throw transportError(deadline.signal.aborted ? new DeadlineError() : error, method, path, this.timeoutMs)
    } finally {
      clearTimeout(timer)
    }
  }
}

