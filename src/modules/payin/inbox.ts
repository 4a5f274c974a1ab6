import { generateEntityId } from "@medusajs/framework/utils"
import { createHash } from "crypto"
import type { Transaction } from "../../client/schemas"
import type { Db } from "./db"

export type InboxEntry = { id: string; state: InboxState; inserted: boolean }
export type InboxState = "received" | "applied" | "failed" | "rejected"
export type InboxOutcome = { ok: true; result: unknown } | { ok: false; error: string; permanent?: boolean }

/** Hashes of applied callbacks remembered per process, for the duplicate fast path. */
const APPLIED_CACHE_SIZE = 20_000

/**
 * The durable webhook inbox: every verified callback is stored before it is applied, then
 * settled (applied; failed and retried with backoff; or rejected for good). Requests refused
 * before verification are only counted, so forged traffic cannot fill the table.
 */
export class WebhookInbox {
  /** hash → entry id of callbacks this process saw applied (bounded, oldest dropped first). */
  private applied_ = new Map<string, string>()
  /** entry id → hash of entries being applied now (removed when settled). */
  private inFlight_ = new Map<string, string>()
  private pendingDuplicates_ = new Map<string, number>()
  private rejected_ = new Map<string, { count: number; reason: string; at: Date }>()
  private flushTimer_: NodeJS.Timeout | null = null

  constructor(private readonly db: () => Db) {}

  /**
   * Stores a verified callback (one statement). A callback whose canonical payload was seen
   * before only bumps that entry's duplicate count. Returns the entry and whether it is new.
   */
  async receive(providerId: string, transaction: Transaction, rawBody: string): Promise<InboxEntry> {
    const hash = createHash("sha256").update(providerId).update("\n").update(canonicalJson(transaction)).digest("hex")
    // A callback this process saw applied: acknowledged from memory, its count added in batches.
    const known = this.applied_.get(hash)
    if (known) {
      this.pendingDuplicates_.set(known, (this.pendingDuplicates_.get(known) ?? 0) + 1)
      this.scheduleFlush()
      return { id: known, state: "applied", inserted: false }
    }
    const result = await this.db().raw(
      `insert into payin_webhook_event (id, provider_id, service_id, status, payload_hash, raw_body)
       values (?, ?, ?, ?, ?, ?)
       on conflict (provider_id, payload_hash) where deleted_at is null
       do update set duplicates = payin_webhook_event.duplicates + 1, updated_at = now()
       returning id, state, (xmax = 0) as inserted`,
      [generateEntityId(undefined, "payinwh"), providerId, transaction.id, transaction.status, hash, rawBody]
    )
    const row = result.rows[0] as InboxEntry
    if (row.state === "applied") {
      this.remember(hash, row.id)
    } else if (row.state !== "rejected") {
      // it will be applied now and settled: only then is its hash worth remembering
      this.inFlight_.set(row.id, hash)
    }
    return row
  }

  /** Entries being applied right now in this process (bounded by the requests in flight). */
  get inFlightCount(): number {
    return this.inFlight_.size
  }

  get appliedCacheSize(): number {
    return this.applied_.size
  }

  /** Records the outcome of applying an entry: applied, failed (retried with backoff) or rejected for good. */
  async settle(id: string, outcome: InboxOutcome): Promise<void> {
    const hash = this.inFlight_.get(id)
    this.inFlight_.delete(id)
    if (outcome.ok) {
      if (hash) this.remember(hash, id)
      await this.db().raw(
        `update payin_webhook_event set state = 'applied', attempts = attempts + 1, applied_at = now(),
           result = ?::jsonb, last_error = null, next_attempt_at = null, updated_at = now()
         where id = ?`,
        [JSON.stringify(outcome.result ?? null), id]
      )
    } else if (outcome.permanent) {
      await this.db().raw(
        `update payin_webhook_event set state = 'rejected', attempts = attempts + 1, last_error = ?,
           next_attempt_at = null, updated_at = now()
         where id = ?`,
        [outcome.error.slice(0, 2000), id]
      )
    } else {
      // 30 s, 1, 2, 4 … minutes, at most an hour between attempts
      await this.db().raw(
        `update payin_webhook_event set state = 'failed', attempts = attempts + 1, last_error = ?,
           next_attempt_at = now() + least(interval '1 hour', interval '30 seconds' * power(2, attempts)),
           updated_at = now()
         where id = ?`,
        [outcome.error.slice(0, 2000), id]
      )
    }
  }

  /** Entries due for another attempt: failed ones whose time came, and received ones left behind by a crash. */
  async due(limit: number, stuckAfterSeconds = 60): Promise<{ id: string; provider_id: string; raw_body: string }[]> {
    const result = await this.db().raw(
      `select id, provider_id, raw_body from payin_webhook_event
       where deleted_at is null and (
         (state = 'failed' and next_attempt_at <= now()) or
         (state = 'received' and created_at < now() - (? * interval '1 second')))
       order by created_at limit ?`,
      [stuckAfterSeconds, limit]
    )
    return result.rows
  }

  /**
   * Counts a webhook refused before or at verification (bad signature, body, other account).
   * Counted in memory and added to the table at most every few seconds: forged traffic costs
   * one row per instance.
   */
  countRejected(providerId: string, reason: string): void {
    const entry = this.rejected_.get(providerId) ?? { count: 0, reason, at: new Date() }
    entry.count++
    entry.reason = reason
    entry.at = new Date()
    this.rejected_.set(providerId, entry)
    this.scheduleFlush()
  }

  /** Writes the counters kept in memory: rejected requests, duplicates acknowledged from memory. */
  async flush(): Promise<void> {
    if (this.flushTimer_) {
      clearTimeout(this.flushTimer_)
      this.flushTimer_ = null
    }
    const duplicates = [...this.pendingDuplicates_.entries()]
    this.pendingDuplicates_.clear()
    for (const [id, count] of duplicates) {
      await this.db()
        .raw("update payin_webhook_event set duplicates = duplicates + ?, updated_at = now() where id = ?", [count, id])
        .catch(() => undefined)
    }
    const pending = [...this.rejected_.entries()]
    this.rejected_.clear()
    for (const [providerId, entry] of pending) {
      try {
        await this.db().raw(
          `insert into payin_webhook_counter (id, provider_id, rejected, last_rejected_at, last_rejection_reason)
           values (?, ?, ?, ?, ?)
           on conflict (provider_id) where deleted_at is null do update set
             rejected = payin_webhook_counter.rejected + excluded.rejected,
             last_rejected_at = excluded.last_rejected_at,
             last_rejection_reason = excluded.last_rejection_reason, updated_at = now()`,
          [generateEntityId(undefined, "payinwc"), providerId, entry.count, entry.at, entry.reason]
        )
      } catch {
        // the counter is informative; losing a batch loses no payment
      }
    }
  }

  /** Webhook health of one provider instance: deliveries accepted, duplicated, refused, failing. */
  async health(providerId: string): Promise<{
    accepted: number
    duplicates: number
    rejected: number
    failed: number
    last_delivery_at: Date | null
    last_failure_at: Date | null
    last_failure_reason: string | null
  }> {
    await this.flush()
    const [inbox, counter] = await Promise.all([
      this.db().raw(
        `select count(*)::int as accepted, coalesce(sum(duplicates), 0)::int as duplicates,
                max(greatest(created_at, updated_at)) as last_delivery_at,
                count(*) filter (where state = 'failed')::int as failed,
                count(*) filter (where state = 'rejected')::int as refused,
                max(updated_at) filter (where last_error is not null) as last_at,
                (array_agg(last_error order by updated_at desc) filter (where last_error is not null))[1] as last_error
         from payin_webhook_event where provider_id = ? and deleted_at is null`,
        [providerId]
      ),
      this.db().raw(
        `select rejected, last_rejected_at, last_rejection_reason from payin_webhook_counter
         where provider_id = ? and deleted_at is null`,
        [providerId]
      ),
    ])
    const i = inbox.rows[0]
    const c = counter.rows[0] ?? { rejected: 0, last_rejected_at: null, last_rejection_reason: null }
    const rejectedLater = c.last_rejected_at && (!i.last_at || new Date(c.last_rejected_at) > new Date(i.last_at))
    return {
      accepted: i.accepted - i.refused,
      duplicates: i.duplicates,
      rejected: c.rejected,
      failed: i.failed,
      last_delivery_at: i.last_delivery_at,
      last_failure_at: rejectedLater ? c.last_rejected_at : (i.last_at ?? null),
      last_failure_reason: rejectedLater ? c.last_rejection_reason : (i.last_error ?? null),
    }
  }

  private remember(hash: string, id: string): void {
    this.applied_.delete(hash)
    this.applied_.set(hash, id)
    while (this.applied_.size > APPLIED_CACHE_SIZE) {
      const oldest = this.applied_.keys().next().value
      if (oldest === undefined) break
      this.applied_.delete(oldest)
    }
  }

  private scheduleFlush(): void {
    if (!this.flushTimer_) {
      this.flushTimer_ = setTimeout(() => void this.flush(), 2000)
      this.flushTimer_.unref?.()
    }
  }
}

/** JSON with sorted keys: the same data gives the same bytes, however the sender ordered it. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v
  )
}
