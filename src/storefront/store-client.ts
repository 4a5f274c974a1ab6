import { splitCode } from "../error-code"
import type { PayinError } from "./errors"
import type { PayinStatusWait } from "./poll"
import type { PayinBanksResponse, PayinStatusResponse, PayinStoreError } from "./types"

/** `GET /store/payin/status`: a cart (before or after checkout) or an order. */
export type PayinStatusQuery = { cart_id: string; order_id?: never } | { order_id: string; cart_id?: never }

/** `GET /store/payin/banks`: for a cart, or for a currency before there is a cart. */
export type PayinBanksQuery =
  | { cart_id: string; currency_code?: never; provider_id?: string }
  | { currency_code: string; cart_id?: never; provider_id?: string }

/** `POST /store/payin/pay-again`: new payment details for an order whose pay-in ended unpaid. */
export type PayinPayAgainBody = {
  order_id: string
  bank?: string
  method?: string
  locale?: string
  /** Left out: the return URLs the order's earlier payment session was created with (the server reuses them). */
  success_url?: string
  failure_url?: string
}

export type PayinPayAgainResult = PayinStatusResponse | { error: PayinError }

export type PayinStoreRequestInit = { method: "POST"; body: Record<string, string> }

/**
 * Resolves with the parsed JSON body, throws on non-2xx; `init` is given only for a POST (`payAgain`). A held
 * status request (query `wait`, `since`) also gets `options.signal`, aborted when the poller no longer needs it.
 */
export type PayinStoreRequest = (
  path: string,
  query: Record<string, string>,
  init?: PayinStoreRequestInit,
  options?: { signal?: AbortSignal }
) => Promise<unknown>

/** The part of a `@medusajs/js-sdk` instance the kit uses, typed structurally so the kit does not depend on the js-sdk. */
export type PayinMedusaSdk = {
  client: {
    fetch<T>(input: string, init?: { query?: Record<string, string>; method?: string; body?: Record<string, string>; signal?: AbortSignal }): Promise<T>
  }
  store: { cart: { complete(cartId: string): Promise<unknown> } }
}

export type PayinStoreClientOptions =
  | {
      sdk: Pick<PayinMedusaSdk, "client">
    }
  | {
      baseUrl: string
      publishableKey: string
      fetch?: typeof fetch
      headers?: Record<string, string>
    }
  | {
      request: PayinStoreRequest
    }

export type PayinStoreClient = {
  /**
   * With `wait` (what `pollPayinStatus` passes its fetcher): the server holds the request until the answer differs
   * from `wait.since`, at most `wait.wait` seconds; `options.signal` aborts it.
   */
  status(query: PayinStatusQuery, wait?: PayinStatusWait, options?: { signal?: AbortSignal }): Promise<PayinStatusResponse>
  banks(query: PayinBanksQuery): Promise<PayinBanksResponse>
  /** Idempotent on the server: a repeated call shows the same new pay-in. */
  payAgain(body: PayinPayAgainBody): Promise<PayinStatusResponse>
}

const TYPE_BY_STATUS: Record<number, string> = {
  400: "invalid_data",
  401: "unauthorized",
  403: "not_allowed",
  404: "not_found",
  409: "conflict",
  422: "invalid_data",
}

export class PayinStoreApiError extends Error {
  override readonly name = "PayinStoreApiError"
  /** HTTP status (0 when the answer could not be read). */
  readonly status: number
  readonly type: string
  readonly code?: string
  readonly fields?: { path: string; message: string }[]

  constructor(status: number, body: Partial<PayinStoreError> | null, options?: { cause?: unknown }) {
    super(body?.message || `The store API answered ${status || "with an error"}`)
    if (options && "cause" in options) Object.defineProperty(this, "cause", { value: options.cause, configurable: true, writable: true })
    this.status = status
    this.type = body?.type || TYPE_BY_STATUS[status] || "unknown_error"
    const code = body?.code || splitCode(this.message).code
    if (code) this.code = code
    if (Array.isArray(body?.fields)) this.fields = body.fields
  }
}

function errorBody(value: unknown): Partial<PayinStoreError> | null {
  if (!value || typeof value !== "object") return null
  const v = value as Record<string, unknown>
  return {
    type: typeof v.type === "string" ? v.type : undefined,
    message: typeof v.message === "string" ? v.message : undefined,
    code: typeof v.code === "string" ? v.code : undefined,
    fields: Array.isArray(v.fields) ? (v.fields as PayinStoreError["fields"]) : undefined,
  }
}

// Checked at call time, not at creation: a module-scope client built from an unset env variable must not break the page importing it.
function requireText(value: unknown, name: string): string {
  if (typeof value !== "string" || !value.trim()) {
    throw new TypeError(
      `createPayinStoreClient: \`${name}\` is missing (got ${value === "" ? "an empty string" : String(value)}). ` +
        (name === "baseUrl"
          ? "Pass the Medusa backend URL, e.g. process.env.MEDUSA_BACKEND_URL on the server (the Next.js starter's variable) or a public URL in the browser, or pass `request` (e.g. the js-sdk's sdk.client.fetch)."
          : "Pass the store's publishable API key (Settings → Publishable API Keys), or pass `request` (e.g. the js-sdk's sdk.client.fetch).")
    )
  }
  return value
}

function fetchRequest(options: { baseUrl: string; publishableKey: string; fetch?: typeof fetch; headers?: Record<string, string> }): PayinStoreRequest {
  return async (path, query, init, extra) => {
    const base = requireText(options.baseUrl, "baseUrl").replace(/\/+$/, "")
    const publishableKey = requireText(options.publishableKey, "publishableKey")
    const doFetch = options.fetch ?? fetch
    const search = new URLSearchParams(query).toString()
    const url = `${base}${path}${search ? `?${search}` : ""}`
    const headers = { accept: "application/json", ...options.headers, "x-publishable-api-key": publishableKey }
    const response = await (init
      ? doFetch(url, { method: init.method, headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(init.body) })
      : doFetch(url, { method: "GET", headers, ...(extra?.signal ? { signal: extra.signal } : {}) }))
    const body: unknown = await response.json().catch(() => null)
    if (!response.ok) throw new PayinStoreApiError(response.status, errorBody(body))
    return body
  }
}

/** Errors of a custom transport with an HTTP status (js-sdk's FetchError) become typed errors. */
function typed(error: unknown): unknown {
  if (error instanceof PayinStoreApiError || !error || typeof error !== "object") return error
  const status = (error as { status?: unknown }).status
  if (typeof status !== "number") return error
  return new PayinStoreApiError(status, errorBody(error), { cause: error })
}

function pick(query: Record<string, unknown>, keys: string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const key of keys) {
    const value = query[key]
    if (typeof value === "string" && value) out[key] = value
  }
  return out
}

function exactlyOne(query: Record<string, string>, a: string, b: string): void {
  if (!query[a] === !query[b]) throw new TypeError(`Pass exactly one of ${a} and ${b}`)
}

/** A small client for the plugin's store API routes; non-2xx answers reject with a {@link PayinStoreApiError}. */
export function createPayinStoreClient(options: PayinStoreClientOptions): PayinStoreClient {
  const request: PayinStoreRequest =
    options && "request" in options
      ? options.request
      : options && "sdk" in options
        ? (path, query, init, extra) =>
            options.sdk.client.fetch(path, init ? { query, ...init } : extra?.signal ? { query, signal: extra.signal } : { query })
        : fetchRequest(options ?? ({} as never))
  const get = async <T>(path: string, query: Record<string, string>, init?: PayinStoreRequestInit, signal?: AbortSignal): Promise<T> => {
    let body: unknown
    try {
      body = await (init ? request(path, query, init) : signal ? request(path, query, undefined, { signal }) : request(path, query))
    } catch (error) {
      throw typed(error)
    }
    if (!body || typeof body !== "object") throw new PayinStoreApiError(0, { message: `Unexpected answer from ${path}` })
    return body as T
  }
  return {
    async status(query, wait, options) {
      const q = pick(query, ["cart_id", "order_id"])
      exactlyOne(q, "cart_id", "order_id")
      if (wait && typeof wait.since === "string" && wait.since && Number.isFinite(wait.wait)) {
        return get<PayinStatusResponse>("/store/payin/status", { ...q, wait: String(Math.min(25, Math.max(0, Math.round(wait.wait * 1000) / 1000))), since: wait.since }, undefined, options?.signal)
      }
      return get<PayinStatusResponse>("/store/payin/status", q)
    },
    async banks(query) {
      const q = pick(query, ["cart_id", "currency_code", "provider_id"])
      exactlyOne(q, "cart_id", "currency_code")
      return get<PayinBanksResponse>("/store/payin/banks", q)
    },
    async payAgain(body) {
      const b = pick(body ?? {}, ["order_id", "bank", "method", "locale", "success_url", "failure_url"])
      if (!b.order_id) throw new TypeError("Pass order_id")
      return get<PayinStatusResponse>("/store/payin/pay-again", {}, { method: "POST", body: b })
    },
  }
}
