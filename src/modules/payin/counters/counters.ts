import { generateEntityId } from "@medusajs/framework/utils"
import type { Db } from "../db"

const FLUSH_AFTER_MS = 2_000
/** At most this many distinct keys wait in memory; beyond it a flush is started at once. */
const MAX_PENDING = 2_000

type Pending = { provider_id: string; minute: number; kind: string; count: number; total_ms: number; max_ms: number; last_at: number; detail: string | null }

/** A service call's outcome as the client saw it (no key, no shopper data). */
export type CallObservation = { operation: string; outcome: string; ms: number; address?: string | null }

/** What became of a webhook delivery: stored (`accepted`), a `duplicate`, or `refused` with a short code. */
export type DeliveryOutcome = "accepted" | "duplicate" | "refused"
export type DeliveryCounter = (providerId: string, outcome: DeliveryOutcome, options?: { code?: string; detail?: string; delta?: number }) => void

/** The kinds of webhook deliveries in payin_health_counter: `webhook:accepted`, `webhook:duplicate`, `webhook:refused:<code>`. */
export const WEBHOOK_KIND = { accepted: "webhook:accepted", duplicate: "webhook:duplicate", refused: "webhook:refused:" } as const
const CODE = /^[a-z_]{1,40}$/

/** A refused delivery's code (`refused` when none is given), from a kind; null for any other kind. */
export function refusedCode(kind: string): string | null {
  return kind.startsWith(WEBHOOK_KIND.refused) ? kind.slice(WEBHOOK_KIND.refused.length) : null
}

/**
 * The plugin's minute counters, one kind per row: service calls (the health's figures) and webhook
 * deliveries (the health's refusals and the webhook delivery totals, folded into daily rows by the
 * retention job once they are past the health's hour). Every process adds in memory and writes them
 * in one upsert at most every 2 s, so a call or a delivery costs no query of its own. A process that
 * dies loses at most its last 2 s of counts.
 */
export class MinuteCounters {
  private pending_ = new Map<string, Pending>()
  private timer_: NodeJS.Timeout | null = null
  private flushing_: Promise<void> = Promise.resolve()

  constructor(private readonly db: () => Db, private readonly onError: (error: unknown) => void = () => undefined) {}

  call(providerId: string, call: CallObservation): void {
    this.add(providerId, `call:${call.operation}:${call.outcome}`, call.ms, call.address ?? null)
  }

  readonly delivery: DeliveryCounter = (providerId, outcome, { code, detail, delta = 1 } = {}) => {
    const kind = outcome === "refused" ? `${WEBHOOK_KIND.refused}${code && CODE.test(code) ? code : "refused"}` : WEBHOOK_KIND[outcome]
    this.add(providerId, kind, 0, detail ? detail.slice(0, 500) : null, Date.now(), delta)
  }

  add(providerId: string, kind: string, ms: number, detail: string | null, at = Date.now(), delta = 1): void {
    const minute = at - (at % 60_000)
    const key = `${providerId}\n${minute}\n${kind}`
    const entry = this.pending_.get(key) ?? { provider_id: providerId, minute, kind, count: 0, total_ms: 0, max_ms: 0, last_at: at, detail: null }
    entry.count += delta
    const whole = Math.max(0, Math.round(ms))
    entry.total_ms += whole
    entry.max_ms = Math.max(entry.max_ms, whole)
    entry.last_at = Math.max(entry.last_at, at)
    if (detail) entry.detail = detail
    this.pending_.set(key, entry)
    if (this.pending_.size >= MAX_PENDING) void this.flush()
    else this.schedule()
  }

  /** Flushes run one after another: a caller that flushes reads the counts of every earlier add. */
  flush(): Promise<void> {
    if (this.timer_) {
      clearTimeout(this.timer_)
      this.timer_ = null
    }
    const run = this.flushing_.then(() => this.write())
    this.flushing_ = run.catch(this.onError)
    return this.flushing_
  }

  private async write(): Promise<void> {
    if (!this.pending_.size) return
    const batch = [...this.pending_.values()]
    this.pending_ = new Map()
    const values: unknown[] = []
    for (const e of batch) {
      values.push(generateEntityId(undefined, "payinhc"), e.provider_id, new Date(e.minute), e.kind, e.count, e.total_ms, e.max_ms, new Date(e.last_at), e.detail)
    }
    try {
      await this.db().raw(
        `insert into payin_health_counter (id, provider_id, minute, kind, count, total_ms, max_ms, last_at, detail)
         values ${batch.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}
         on conflict (provider_id, minute, kind) where deleted_at is null do update set
           count = payin_health_counter.count + excluded.count,
           total_ms = least(payin_health_counter.total_ms::bigint + excluded.total_ms, 2147483647)::int,
           max_ms = greatest(payin_health_counter.max_ms, excluded.max_ms),
           last_at = greatest(payin_health_counter.last_at, excluded.last_at),
           detail = coalesce(excluded.detail, payin_health_counter.detail),
           updated_at = now()`,
        values
      )
    } catch (error) {
      // kept for the next flush rather than lost (a restarting database)
      for (const e of batch) {
        const key = `${e.provider_id}\n${e.minute}\n${e.kind}`
        const now = this.pending_.get(key)
        if (!now) this.pending_.set(key, e)
        else {
          now.count += e.count
          now.total_ms += e.total_ms
          now.max_ms = Math.max(now.max_ms, e.max_ms)
          now.last_at = Math.max(now.last_at, e.last_at)
          now.detail = now.detail ?? e.detail
        }
      }
      this.schedule()
      throw error
    }
  }

  private schedule(): void {
    if (!this.timer_) {
      this.timer_ = setTimeout(() => void this.flush(), FLUSH_AFTER_MS)
      this.timer_.unref?.()
    }
  }
}
