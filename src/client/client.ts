import type { Pool } from "undici"
import type { z } from "zod"
import { RefusedAddressError, guardedLookup, refusedHostName } from "./address"
import { type Answer, parseAnswer, unwrapList } from "./answer"
import { OperationDeadline } from "./deadline"
import type { AroundCall, ServiceCall, ServiceOperation } from "./calls"
import { PayinNotFoundError, PayinServiceError } from "./errors"
import { Bank, BankListSchema, Currency, CurrencyListSchema, PayinRequest, Transaction, TransactionSchema } from "./schemas"
import { sign } from "./signature"
import { DeadlineError, addressError, readCapped, transportError } from "./transport"

export type PayinClientOptions = {
  baseUrl: string
  apiKey: string
  /** One HTTP exchange, whole (connect, headers, body); a whole call ends within OPERATION_DEADLINE_FACTOR × timeoutMs. */
  timeoutMs?: number
  maxResponseBytes?: number
  /** Checks the literal host and every address its name resolves to when connecting (a URL typed in the admin). */
  refusePrivateAddresses?: boolean
  /** Off for a URL typed in the admin: its answers are not the service's, so errors say only the status. */
  quoteAnswers?: boolean
  signRequests?: boolean
  getAttempts?: number
  backoffMs?: number
  createAttempts?: number
  /** For one-off clients (the admin's test connection); by default clients share one keep-alive pool per origin. */
  ownPool?: boolean
  /** Runs around each public call (its span, the health's counters: `aroundAll`, `observeCalls`); never given the key or the request. */
  around?: AroundCall
}

// Loaded on the first request: at start-up undici was ~2 MB of the plugin's 5 MB of live heap and 0.1 s of CPU (integration-tests/bench/footprint.bench.ts).
let undiciModule: typeof import("undici") | undefined
function newPool(origin: string, options: ConstructorParameters<typeof Pool>[1]): Pool {
  undiciModule ??= require("undici") as typeof import("undici")
  return new undiciModule.Pool(origin, options)
}

export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024

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

function guard(guarded: boolean): { connect?: { lookup: typeof guardedLookup } } {
  return guarded ? { connect: { lookup: guardedLookup } } : {}
}

export async function closePayinPools(): Promise<void> {
  const all = [...pools.values()]
  pools.clear()
  await Promise.all(all.map((p) => p.close().catch(() => undefined)))
}

/** GETs retry with backoff; the pay-in POST is never re-sent without first looking the pay-in up by its externalTransactionId. */
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
  private readonly refusedHost: string | null
  private readonly quoteAnswers: boolean
  private readonly ownPool: Pool | null
  private readonly around: AroundCall | undefined

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
    this.around = options.around
    this.ownPool = options.ownPool
      ? newPool(this.origin, { connections: 4, keepAliveTimeout: 5_000, ...guard(this.guarded) })
      : null
  }

  async close(): Promise<void> {
    await this.ownPool?.close().catch(() => undefined)
  }

  /** Once; an `ambiguous` error may have taken effect. */
  async createPayInOnce(body: PayinRequest): Promise<Transaction> {
    return this.call("create_payin", "creating the pay-in", (deadline) => this.post(body, deadline))
  }

  /** At most once: a POST of unknown outcome (or a taken external id) is followed by a lookup, and re-sent only when the service has none. */
  async createPayIn(body: PayinRequest, externalId: string): Promise<Transaction> {
    return this.call("create_payin", "creating the pay-in", (deadline) => this.create(body, externalId, deadline))
  }

  async getTransaction(id: string): Promise<Transaction> {
    return this.call("get_payin", "looking the pay-in up", (deadline) => this.getById(id, deadline))
  }

  async getTransactionByExternalId(externalId: string): Promise<Transaction> {
    return this.call("get_payin_by_external_id", "looking the pay-in up", (deadline) => this.getByExternalId(externalId, deadline))
  }

  async findByExternalId(externalId: string): Promise<Transaction | null> {
    return this.call("find_payin_by_external_id", "looking the pay-in up", (deadline) => this.findWithin(externalId, deadline))
  }

  async lookUp(ref: { id?: string | null; externalId?: string | null }): Promise<Transaction | null> {
    return this.call("look_up", "looking the pay-in up", (deadline) => this.lookUpWithin(ref, deadline))
  }

  async listBanks(): Promise<Bank[]> {
    return this.call("list_banks", "listing the banks", (deadline) => this.get("/payment/trading/banks", unwrapList(BankListSchema), deadline))
  }

  async listCurrencies(): Promise<Currency[]> {
    return this.call("list_currencies", "listing the currencies", (deadline) =>
      this.get("/payment/trading/currency", unwrapList(CurrencyListSchema), deadline)
    )
  }

  /** One operation under one deadline, inside the `around` hook (the deadline counts its HTTP exchanges). */
  private call<T>(operation: ServiceOperation, what: string, run: (deadline: OperationDeadline) => Promise<T>): Promise<T> {
    const deadline = new OperationDeadline(what, this.timeoutMs)
    if (!this.around) return run(deadline)
    const call: ServiceCall = {
      operation,
      get exchanges() {
        return deadline.exchanges
      },
      get lastStatus() {
        return deadline.lastStatus
      },
    }
    return this.around(call, () => run(deadline))
  }

  private async create(body: PayinRequest, externalId: string, deadline: OperationDeadline): Promise<Transaction> {
    let lastError: unknown
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) {
        if (!(await deadline.pause(this.backoff(attempt - 1)))) break
        const existing = await this.settle(externalId, lastError, deadline)
        if (existing) return existing
        if (attempt > this.createAttempts) break
      }
      try {
        return await this.post(body, deadline)
      } catch (error) {
        lastError = error
        if (error instanceof PayinServiceError && error.kind === "duplicate_external_id") {
          const existing = await this.findWithin(externalId, deadline)
          if (existing) return existing
          throw error
        }
        if (!(error instanceof PayinServiceError) || !error.ambiguous) throw error
      }
    }
    throw lastError
  }

  private async lookUpWithin(ref: { id?: string | null; externalId?: string | null }, deadline: OperationDeadline): Promise<Transaction | null> {
    if (ref.id) {
      try {
        return await this.getById(ref.id, deadline)
      } catch (error) {
        if (error instanceof PayinNotFoundError) return null
        throw error
      }
    }
    return ref.externalId ? this.findWithin(ref.externalId, deadline) : null
  }

  private async post(body: PayinRequest, deadline: OperationDeadline): Promise<Transaction> {
    const res = await this.send("POST", "/payment/trading/pay-in", deadline, JSON.stringify(body))
    return parseAnswer(res, TransactionSchema, "POST", "/payment/trading/pay-in", this.quoteAnswers)
  }

  /** A failed lookup leaves the POST's outcome unknown: what it throws is ambiguous. */
  private async settle(externalId: string, postError: unknown, deadline: OperationDeadline): Promise<Transaction | null> {
    try {
      return await this.findWithin(externalId, deadline)
    } catch (error) {
      throw error instanceof PayinServiceError && error.ambiguous ? error : postError
    }
  }

  private getById(id: string, deadline: OperationDeadline): Promise<Transaction> {
    return this.get(`/payment/trading/${encodeURIComponent(id)}`, TransactionSchema, deadline)
  }

  private getByExternalId(externalId: string, deadline: OperationDeadline): Promise<Transaction> {
    return this.get(`/payment/trading/external/${encodeURIComponent(externalId)}`, TransactionSchema, deadline)
  }

  private async findWithin(externalId: string, deadline: OperationDeadline): Promise<Transaction | null> {
    try {
      return await this.getByExternalId(externalId, deadline)
    } catch (error) {
      if (error instanceof PayinNotFoundError) return null
      throw error
    }
  }

  private async get<S extends z.ZodType>(path: string, schema: S, deadline: OperationDeadline): Promise<z.output<S>> {
    let lastError: unknown
    for (let attempt = 1; attempt <= this.getAttempts; attempt++) {
      if (attempt > 1 && !(await deadline.pause(this.backoff(attempt - 1)))) break
      try {
        const res = await this.send("GET", path, deadline)
        return parseAnswer(res, schema, "GET", path, this.quoteAnswers)
      } catch (error) {
        lastError = error
        if (!(error instanceof PayinServiceError) || !error.retryable) throw error
      }
    }
    throw lastError
  }

  private backoff(retry: number): number {
    const base = this.backoffMs * 2 ** (retry - 1)
    return base / 2 + Math.random() * base
  }

  private async send(method: "GET" | "POST", path: string, operation: OperationDeadline, body?: string): Promise<Answer> {
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
    const budget = Math.min(this.timeoutMs, operation.leftMs())
    if (budget <= 0) {
      throw new PayinServiceError(
        "timeout",
        `${method} ${path} was not sent: the deadline of ${operation.operation} (${operation.totalMs} ms) had passed`,
        { method, path }
      )
    }
    const fullPath = this.prefix + path
    // undici's headersTimeout / bodyTimeout are idle timers (a server sending a byte a second never
    // trips them): one deadline covers connecting, the headers and the whole body.
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(new DeadlineError()), budget)
    operation.exchanges++
    try {
      const res = await (this.ownPool ?? poolFor(this.origin, this.guarded)).request({
        method,
        path: fullPath,
        headers,
        body,
        headersTimeout: budget,
        bodyTimeout: budget,
        signal: deadline.signal,
      })
      operation.lastStatus = res.statusCode
      const text = await readCapped(res, this.maxResponseBytes, method, path)
      return { status: res.statusCode, text }
    } catch (error) {
      if (error instanceof PayinServiceError) throw error
      throw transportError(deadline.signal.aborted ? new DeadlineError() : error, method, path, operation.describe(budget, this.timeoutMs))
    } finally {
      clearTimeout(timer)
    }
  }
}

