import { Agent, request } from "undici"
import { shuffle, type Random } from "./random"

export type WebhookMode = "in_order" | "shuffled" | "delayed"

export interface DeliverySettings {
  mode: WebhookMode
  delayMs: number
  shuffleWindowMs: number
  /** Wait before retry n (after a non-2xx answer or a network error); its length bounds the retries. */
  retryDelaysMs: number[]
  timeoutMs: number
}

export interface WebhookEvent {
  transactionId: string
  status: string
  /** "status_change" for a transition, "repeat" for a duplicate asked through the control API. */
  reason: "status_change" | "repeat"
  url: string
  body: string
  signature: string
}

export interface DeliveryLogEntry {
  deliveryId: number
  transactionId: string
  status: string
  reason: WebhookEvent["reason"]
  url: string
  body: string
  signature: string
  attempt: number
  responseStatus: number | null
  error: string | null
  time: string
}

interface Job {
  id: number
  event: WebhookEvent
  attempt: number
}

export const DELIVERY_LOG_LIMIT = 100_000

/** Sent one at a time by a background pump, so status changes never wait for the merchant's receiver. */
export class WebhookDispatcher {
  private queue: Job[] = []
  private shuffleBuffer: Job[] = []
  private shuffleTimer: NodeJS.Timeout | null = null
  private timers = new Set<NodeJS.Timeout>()
  private pumping = false
  private closed = false
  private nextId = 1
  private entries: DeliveryLogEntry[] = []
  private idleWaiters: (() => void)[] = []
  private inFlight = new AbortController()
  private agent = new Agent({ keepAliveTimeout: 4_000, connections: 16 })

  constructor(
    private settings: () => DeliverySettings,
    private now: () => number,
    private random: Random
  ) {}

  enqueue(event: WebhookEvent): void {
    if (this.closed) return
    const job: Job = { id: this.nextId++, event, attempt: 0 }
    const settings = this.settings()
    if (settings.mode === "delayed" && settings.delayMs > 0) {
      this.later(settings.delayMs, () => this.push(job))
    } else if (settings.mode === "shuffled") {
      this.shuffleBuffer.push(job)
      if (!this.shuffleTimer) {
        this.shuffleTimer = setTimeout(() => this.flushShuffled(), settings.shuffleWindowMs)
        this.shuffleTimer.unref()
      }
    } else {
      this.push(job)
    }
  }

  log(): DeliveryLogEntry[] {
    return this.entries
  }

  clearLog(): void {
    this.entries = []
  }

  pending(): number {
    return this.queue.length + this.shuffleBuffer.length + this.timers.size + (this.pumping ? 1 : 0)
  }

  idle(): Promise<void> {
    if (this.pending() === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  async close(): Promise<void> {
    this.closed = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    if (this.shuffleTimer) clearTimeout(this.shuffleTimer)
    this.shuffleTimer = null
    this.queue = []
    this.shuffleBuffer = []
    this.inFlight.abort()
    await this.agent.close().catch(() => undefined)
    this.notifyIdle()
  }

  private flushShuffled(): void {
    this.shuffleTimer = null
    const batch = shuffle(this.shuffleBuffer, this.random)
    this.shuffleBuffer = []
    for (const job of batch) this.queue.push(job)
    this.pump()
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      fn()
      this.notifyIdle()
    }, ms)
    timer.unref()
    this.timers.add(timer)
  }

  private push(job: Job): void {
    if (this.closed) return
    this.queue.push(job)
    this.pump()
  }

  private pump(): void {
    if (this.pumping || this.closed) return
    this.pumping = true
    void (async () => {
      try {
        for (let job = this.queue.shift(); job && !this.closed; job = this.queue.shift()) {
          await this.attempt(job)
        }
      } finally {
        this.pumping = false
        this.notifyIdle()
      }
    })()
  }

  private async attempt(job: Job): Promise<void> {
    job.attempt++
    const { event } = job
    const settings = this.settings()
    let responseStatus: number | null = null
    let error: string | null = null
    try {
      const signal = AbortSignal.any([this.inFlight.signal, AbortSignal.timeout(settings.timeoutMs)])
      const res = await request(event.url, {
        method: "POST",
        body: event.body,
        headers: {
          "content-type": "application/json",
          "x-signature": event.signature,
          "user-agent": "payin-sandbox",
        },
        dispatcher: this.agent,
        headersTimeout: settings.timeoutMs,
        bodyTimeout: settings.timeoutMs,
        signal,
      })
      responseStatus = res.statusCode
      await res.body.dump().catch(() => undefined)
    } catch (err) {
      error = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
    }
    if (this.closed) return
    this.entries.push({
      deliveryId: job.id,
      transactionId: event.transactionId,
      status: event.status,
      reason: event.reason,
      url: event.url,
      body: event.body,
      signature: event.signature,
      attempt: job.attempt,
      responseStatus,
      error,
      time: new Date(this.now()).toISOString(),
    })
    if (this.entries.length > DELIVERY_LOG_LIMIT) {
      this.entries.splice(0, this.entries.length - DELIVERY_LOG_LIMIT)
    }
    const delivered = responseStatus !== null && responseStatus >= 200 && responseStatus < 300
    if (!delivered && job.attempt <= settings.retryDelaysMs.length) {
      this.later(settings.retryDelaysMs[job.attempt - 1], () => this.push(job))
    }
  }

  private notifyIdle(): void {
    if (this.pending() > 0 && !this.closed) return
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const resolve of waiters) resolve()
  }
}
