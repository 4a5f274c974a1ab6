import { createHmac } from "crypto"
import { createServer, type IncomingMessage, type Server } from "http"
import type { AddressInfo } from "net"
import { request } from "undici"
import { startSandbox, type RunningSandbox, type SandboxOptions } from "../../src/sandbox"

export const API_KEY = "test_api_key_0123456789"

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
export const DECIMAL_2 = /^\d+\.\d{2}$/
export const DIGITS = /^\d+$/

export interface HttpResult<T = any> {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  body: T
}

/** A JSON request through undici; `body` is parsed when the answer is JSON. */
export async function call<T = any>(
  base: string,
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  options: { body?: unknown; rawBody?: string; apiKey?: string | null; headers?: Record<string, string> } = {}
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) }
  if (options.apiKey !== null) headers["x-api-key"] = options.apiKey ?? API_KEY
  let payload: string | undefined = options.rawBody
  if (options.body !== undefined) payload = JSON.stringify(options.body)
  if (payload !== undefined && !headers["content-type"]) headers["content-type"] = "application/json"
  const res = await request(`${base}${path}`, { method, headers, body: payload })
  const text = await res.body.text()
  let parsed: unknown = undefined
  const type = String(res.headers["content-type"] ?? "")
  if (type.includes("application/json") && text !== "") parsed = JSON.parse(text)
  return { status: res.statusCode, headers: res.headers, text, body: parsed as T }
}

export interface ReceivedWebhook {
  rawBody: Buffer
  signature: string | undefined
  contentType: string | undefined
  body: any
  answeredWith: number
}

/**
 * A local webhook receiver (node:http). `answer` decides each response status (default 200).
 * Every request is recorded with its raw body, before any parsing.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = []
  answer: (n: number, req: IncomingMessage) => number = () => 200
  private server: Server
  private waiters: { count: number; resolve: () => void }[] = []
  url = ""

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const rawBody = Buffer.concat(chunks)
        const status = this.answer(this.received.length + 1, req)
        this.received.push({
          rawBody,
          signature: req.headers["x-signature"] as string | undefined,
          contentType: req.headers["content-type"],
          body: JSON.parse(rawBody.toString("utf8")),
          answeredWith: status,
        })
        res.statusCode = status
        res.end(status < 300 ? "ok" : "nope")
        this.waiters = this.waiters.filter((w) => {
          if (this.received.length >= w.count) {
            w.resolve()
            return false
          }
          return true
        })
      })
    })
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/payin/default`
    return this
  }

  /** Resolves once `count` webhooks have arrived in total (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedWebhook[]> {
    if (this.received.length >= count) return Promise.resolve(this.received.slice(0, count))
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`expected ${count} webhooks, got ${this.received.length}`)),
        timeoutMs
      )
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer)
          resolve(this.received.slice(0, count))
        },
      })
    })
  }

  reset(): void {
    this.received.length = 0
    this.answer = () => 200
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve())
      this.server.closeAllConnections()
    })
  }
}

/** Independent HMAC-SHA256 (hex) of the raw bytes, as a merchant's receiver computes it. */
export function hmacHex(raw: Buffer | string, key: string): string {
  return createHmac("sha256", key).update(raw).digest("hex")
}

export function payInBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { fiatAmount: 1500, fiatCurrency: "RUB", ...overrides }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** A sandbox and a webhook receiver for one describe block, as its tests see them. */
export interface SandboxUnderTest {
  sandbox: RunningSandbox
  base: string
  receiver: WebhookReceiver
  /** Creates a pay-in through the service API (201 expected); resolves with its body. */
  create: (overrides?: Record<string, unknown>) => Promise<any>
}

/**
 * Starts a sandbox (API_KEY, webhooks to a fresh receiver) before the block and stops it after;
 * before each test, waits for its deliveries, resets it, puts back the merchant settings
 * `merchant` gives for the receiver's URL, and empties the receiver.
 */
export function sandboxUnderTest(options: Partial<SandboxOptions>, merchant: (receiverUrl: string) => Record<string, unknown>): SandboxUnderTest {
  const under = {
    create: async (overrides: Record<string, unknown> = {}) => {
      const res = await call(under.base, "POST", "/payment/trading/pay-in", { body: payInBody(overrides) })
      expect(res.status).toBe(201)
      return res.body
    },
  } as SandboxUnderTest
  beforeAll(async () => {
    under.receiver = await new WebhookReceiver().start()
    under.sandbox = await startSandbox({ port: 0, apiKey: API_KEY, webhookUrl: under.receiver.url, ...options })
    under.base = under.sandbox.url
  })
  afterAll(async () => {
    await under.sandbox.close()
    await under.receiver.stop()
  })
  beforeEach(async () => {
    await under.sandbox.webhooksIdle()
    await call(under.base, "POST", "/_sandbox/reset", { apiKey: null })
    await call(under.base, "PUT", "/_sandbox/merchant", { apiKey: null, body: merchant(under.receiver.url) })
    under.receiver.reset()
  })
  return under
}
