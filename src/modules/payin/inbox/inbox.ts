import { createHash } from "crypto"
import type { Transaction } from "../../../client/schemas"
import { type DeliveryCounter, WEBHOOK_KIND } from "../counters/counters"
import type { Db } from "../db"
import { entityId } from "../db/entity-id"
import { GroupCommit } from "./group-commit"

export type InboxEntry = { id: string; state: InboxState; inserted: boolean }
type Incoming = { providerId: string; serviceId: string; status: string; hash: string; rawBody: string }
export type ClaimedEntry = { id: string; provider_id: string; raw_body: string; created_at: Date }
export type InboxState = "received" | "applied" | "failed" | "rejected"
export type Deliveries = {
  accepted: number
  duplicates: number
  rejected: number
  failed: number
  last_delivery_at: Date | null
  last_failure_at: Date | null
  last_failure_reason: string | null
}
/** `reason` (a short code, e.g. "foreign_payin") is what webhook health shows for a permanent failure. */
export type InboxOutcome = { ok: true; result: unknown } | { ok: false; error: string; permanent?: boolean; reason?: string }

/** The entry id answered for a duplicate of an entry the retention job pruned (its hash is kept). */
export const PRUNED_ENTRY_ID = "pruned"

const APPLIED_CACHE_SIZE = 20_000

/** Requests refused before verification are only counted, so forged traffic cannot fill the table. */
export class WebhookInbox {
  /** hash → entry id of callbacks this process saw applied (bounded, oldest dropped first). */
  private applied_ = new Map<string, string>()
  private pendingDuplicates_ = new Map<string, number>()
  private flushTimer_: NodeJS.Timeout | null = null
  private flushing_: Promise<void> = Promise.resolve()
  /** Callbacks arriving while one INSERT runs go out together in the next (one statement, not one each). */
  private writer_ = new GroupCommit<Incoming, InboxEntry | undefined>((items) => this.insert(items))

  constructor(
    private readonly db: () => Db,
    /** Every delivery's outcome, in the module's minute counters (one batcher for calls and deliveries). */
    private readonly counters: { delivery: DeliveryCounter; flush(): Promise<void> }
  ) {}

  /** A callback whose canonical payload was seen before only bumps that entry's duplicate count (and makes a failed one due at once: the sender tries again). */
  async receive(providerId: string, transaction: Transaction, rawBody: string): Promise<InboxEntry> {
    const hash = createHash("sha256").update(providerId).update("\n").update(canonicalJson(transaction)).digest("hex")
    // A callback this process saw applied: acknowledged from memory, its count added in batches.
    const known = this.applied_.get(hash)
    if (known) {
      this.pendingDuplicates_.set(known, (this.pendingDuplicates_.get(known) ?? 0) + 1)
      this.scheduleFlush()
      this.counters.delivery(providerId, "duplicate")
      return { id: known, state: "applied", inserted: false }
    }
    const row = await this.writer_.submit({ providerId, serviceId: transaction.id, status: transaction.status, hash, rawBody })
    if (!row) {
      // a delivery of a callback applied and pruned long ago: a duplicate, never applied again
      this.counters.delivery(providerId, "duplicate")
      return { id: PRUNED_ENTRY_ID, state: "applied", inserted: false }
    }
    this.counters.delivery(providerId, row.inserted ? "accepted" : "duplicate")
    // applied by whichever process claims it: remembered here once a delivery finds it applied
    if (row.state === "applied") this.remember(hash, row.id)
    return row
  }

  /**
   * One statement for a batch: each new callback inserted, each known one's duplicate count raised
   * (and a failed one made due at once), none stored again when its entry was applied and pruned
   * since (payin_webhook_hash: undefined). The same callback twice in a batch: one row, the other a duplicate.
   */
  private async insert(items: Incoming[]): Promise<(InboxEntry | undefined)[]> {
    const keyOf = (i: Incoming) => `${i.providerId}\n${i.hash}`
    const firsts = new Map<string, { item: Incoming; extra: number }>()
    for (const item of items) {
      const seen = firsts.get(keyOf(item))
      if (seen) seen.extra++
      else firsts.set(keyOf(item), { item, extra: 0 })
    }
    const rows = [...firsts.values()]
    const column = <T>(f: (r: { item: Incoming; extra: number }) => T) => rows.map(f)
    const result = await this.db().raw(
      `insert into payin_webhook_event (id, provider_id, service_id, status, payload_hash, raw_body, duplicates)
       select v.id, v.provider_id, v.service_id, v.status, v.payload_hash, v.raw_body, v.duplicates
       from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[])
         as v(id, provider_id, service_id, status, payload_hash, raw_body, duplicates)
       where not exists (select 1 from payin_webhook_hash h where h.provider_id = v.provider_id and h.payload_hash = v.payload_hash and h.deleted_at is null)
       on conflict (provider_id, payload_hash) where deleted_at is null
       do update set duplicates = payin_webhook_event.duplicates + excluded.duplicates + 1, updated_at = now(),
         next_attempt_at = case when payin_webhook_event.state = 'failed' then now() else payin_webhook_event.next_attempt_at end
       returning id, state, (xmax = 0) as inserted, provider_id, payload_hash`,
      [
        column(() => entityId("payinwh")),
        column((r) => r.item.providerId),
        column((r) => r.item.serviceId),
        column((r) => r.item.status),
        column((r) => r.item.hash),
        column((r) => r.item.rawBody),
        column((r) => r.extra),
      ]
    )
    const stored = new Map<string, InboxEntry>(
      (result.rows as (InboxEntry & { provider_id: string; payload_hash: string })[]).map((r) => [
        `${r.provider_id}\n${r.payload_hash}`,
        { id: r.id, state: r.state, inserted: r.inserted },
      ])
    )
    const answered = new Set<string>()
    return items.map((item) => {
      const row = stored.get(keyOf(item))
      if (!row) return undefined
      if (answered.has(keyOf(item))) return { ...row, inserted: false }
      answered.add(keyOf(item))
      return row
    })
  }

  get appliedCacheSize(): number {
    return this.applied_.size
  }

  async settle(id: string, outcome: InboxOutcome): Promise<void> {
    if (outcome.ok) {
      await this.db().raw(
        `update payin_webhook_event set state = 'applied', attempts = attempts + 1, applied_at = now(),
           result = ?::jsonb, last_error = null, next_attempt_at = null, claimed_until = null, updated_at = now()
         where id = ?`,
        [JSON.stringify(outcome.result ?? null), id]
      )
    } else if (outcome.permanent) {
      const refused = await this.db().raw(
        `update payin_webhook_event set state = 'rejected', attempts = attempts + 1, last_error = ?,
           next_attempt_at = null, claimed_until = null, updated_at = now()
         where id = ? and state <> 'rejected' returning provider_id`,
        [outcome.error.slice(0, 2000), id]
      )
      // counted as accepted when it arrived: now a refused delivery (counted here only, once)
      for (const { provider_id } of refused.rows) {
        this.counters.delivery(provider_id, "accepted", { delta: -1 })
        this.counters.delivery(provider_id, "refused", { code: outcome.reason, detail: outcome.reason ?? outcome.error })
      }
    } else {
      // 30 s, 1, 2, 4 … minutes, at most an hour between attempts
      await this.db().raw(
        `update payin_webhook_event set state = 'failed', attempts = attempts + 1, last_error = ?,
           next_attempt_at = now() + least(interval '1 hour', interval '30 seconds' * power(2, attempts)),
           claimed_until = null, updated_at = now()
         where id = ?`,
        [outcome.error.slice(0, 2000), id]
      )
    }
  }

  /**
   * Leases up to `limit` entries to apply, oldest first: received ones and failed ones whose retry
   * time came, none that another process holds (its lease not passed). One pay-in's callbacks are
   * booked in the order they came: none while an older one of it waits unbooked or one of it is
   * being booked (a failed one waiting for its retry holds nothing up). One statement.
   */
  async claim(limit: number, leaseSeconds: number): Promise<ClaimedEntry[]> {
    const result = await this.db().raw(
      `update payin_webhook_event e set claimed_until = now() + make_interval(secs => ?)
       from (select c.id from payin_webhook_event c
             where c.deleted_at is null and (c.claimed_until is null or c.claimed_until < now())
               and (c.state = 'received' or (c.state = 'failed' and c.next_attempt_at <= now()))
               and not exists (
                 select 1 from payin_webhook_event o
                 where o.service_id = c.service_id and o.provider_id = c.provider_id and o.id <> c.id and o.deleted_at is null
                   and o.state in ('received', 'failed')
                   and ((o.state = 'received' and (o.created_at, o.id) < (c.created_at, c.id)) or o.claimed_until > now()))
             order by c.created_at limit ? for update of c skip locked) due
       where e.id = due.id
       returning e.id, e.provider_id, e.raw_body, e.created_at`,
      [leaseSeconds, limit]
    )
    return result.rows
  }

  /** Extends the leases of entries this process is still applying (one statement, only while one runs past a third of its lease). */
  async extendLeases(ids: readonly string[], leaseSeconds: number): Promise<void> {
    if (!ids.length) return
    await this.db().raw(
      `update payin_webhook_event set claimed_until = now() + make_interval(secs => ?)
       where id = any(?::text[]) and state in ('received', 'failed') and claimed_until is not null and deleted_at is null`,
      [leaseSeconds, [...ids]]
    )
  }

  /** A request refused before it was stored (forged, unsigned, unreadable): only counted, so forged traffic fills no table. */
  countRejected(providerId: string, reason: string): void {
    this.counters.delivery(providerId, "refused", { code: reason, detail: reason })
  }

  /** Writes the duplicate counts acknowledged from memory and the delivery counters; flushes run one after another. */
  flush(): Promise<void> {
    if (this.flushTimer_) {
      clearTimeout(this.flushTimer_)
      this.flushTimer_ = null
    }
    const run = this.flushing_.then(() => this.writeDuplicates()).then(() => this.counters.flush())
    this.flushing_ = run.catch(() => undefined)
    return run
  }

  private async writeDuplicates(): Promise<void> {
    const duplicates = [...this.pendingDuplicates_.entries()]
    this.pendingDuplicates_.clear()
    for (const [id, count] of duplicates) {
      await this.db()
        .raw("update payin_webhook_event set duplicates = duplicates + ?, updated_at = now() where id = ?", [count, id])
        .catch(() => undefined)
    }
  }

  /**
   * Moves delivery counts older than `minutes` (past the health's hour) from the minute counters into
   * the day's row (payin_webhook_counter), in one statement: never counted twice, never lost.
   */
  async foldCounters(minutes: number, limit: number): Promise<number> {
    const result = await this.db().raw(
      `with moved as (
         delete from payin_health_counter where id in (
           select id from payin_health_counter
           where kind like 'webhook:%' and deleted_at is null and minute < now() - make_interval(mins => ?)
           order by minute limit ?)
         returning provider_id, minute, kind, count, last_at, detail),
       per_day as (
         select provider_id, date_trunc('day', minute at time zone 'UTC') at time zone 'UTC' as day,
                coalesce(sum(count) filter (where kind = ?), 0)::int as accepted,
                coalesce(sum(count) filter (where kind = ?), 0)::int as duplicates,
                coalesce(sum(count) filter (where kind like ?), 0)::int as rejected,
                max(last_at) as last_delivery_at,
                max(last_at) filter (where kind like ?) as last_rejected_at,
                (array_agg(coalesce(detail, kind) order by last_at desc) filter (where kind like ?))[1] as reason,
                count(*)::int as n
         from moved group by 1, 2),
       folded as (
         insert into payin_webhook_counter (id, provider_id, day, accepted, duplicates, rejected, last_delivery_at, last_rejected_at, last_rejection_reason)
         select 'payinwc_' || replace(gen_random_uuid()::text, '-', ''), provider_id, day, accepted, duplicates, rejected, last_delivery_at, last_rejected_at, reason from per_day
         on conflict (provider_id, day) where deleted_at is null do update set
           accepted = payin_webhook_counter.accepted + excluded.accepted,
           duplicates = payin_webhook_counter.duplicates + excluded.duplicates,
           rejected = payin_webhook_counter.rejected + excluded.rejected,
           last_delivery_at = greatest(payin_webhook_counter.last_delivery_at, excluded.last_delivery_at),
           last_rejected_at = greatest(payin_webhook_counter.last_rejected_at, excluded.last_rejected_at),
           last_rejection_reason = case when excluded.last_rejected_at >= coalesce(payin_webhook_counter.last_rejected_at, excluded.last_rejected_at)
             then excluded.last_rejection_reason else payin_webhook_counter.last_rejection_reason end,
           updated_at = now())
       select coalesce(sum(n), 0)::int as n from per_day`,
      [minutes, limit, WEBHOOK_KIND.accepted, WEBHOOK_KIND.duplicate, `${WEBHOOK_KIND.refused}%`, `${WEBHOOK_KIND.refused}%`, `${WEBHOOK_KIND.refused}%`]
    )
    return Number(result.rows[0]?.n ?? 0)
  }

  /** Applied entries only: received and failed ones still have work to do, rejected ones are kept for inspection. */
  async pruneApplied(days: number, limit: number): Promise<number> {
    // their hashes are kept (payin_webhook_hash), in the same statement: a delivery of one of them
    // later is still a duplicate
    const result = await this.db().raw(
      `with doomed as (
         select id from payin_webhook_event
         where state = 'applied' and deleted_at is null and applied_at < now() - (? * interval '1 day')
         order by applied_at limit ? for update skip locked),
       gone as (
         delete from payin_webhook_event e using doomed where e.id = doomed.id and e.state = 'applied'
         returning e.provider_id, e.payload_hash),
       kept as (
         insert into payin_webhook_hash (id, provider_id, payload_hash, pruned_at)
         select 'payinwhh_' || md5(provider_id || ':' || payload_hash), provider_id, payload_hash, now() from gone
         on conflict (provider_id, payload_hash) where deleted_at is null do nothing)
       select count(*)::int as n from gone`,
      [days, limit]
    )
    return Number(result.rows[0]?.n ?? 0)
  }

  async pruneHashes(days: number, limit: number): Promise<number> {
    const result = await this.db().raw(
      `delete from payin_webhook_hash where id in (
         select id from payin_webhook_hash where deleted_at is null and pruned_at < now() - (? * interval '1 day')
         order by pruned_at limit ?)`,
      [days, limit]
    )
    return result.rowCount ?? 0
  }

  async pruneCounters(days: number, limit: number): Promise<number> {
    const result = await this.db().raw(
      `delete from payin_webhook_counter where id in (
         select id from payin_webhook_counter
         where deleted_at is null and day < now() - (? * interval '1 day') - interval '1 day'
         order by day limit ?)`,
      [days, limit]
    )
    return result.rowCount ?? 0
  }

  /** Deliveries of an instance over the kept days: the day rows plus the minute counts not folded into them yet. */
  async deliveries(providerId: string): Promise<Deliveries> {
    await this.flush()
    const refused = `${WEBHOOK_KIND.refused}%`
    const [days, minutes, failed, lastError] = await Promise.all([
      this.db().raw(
        `select coalesce(sum(accepted), 0)::int as accepted, coalesce(sum(duplicates), 0)::int as duplicates,
                coalesce(sum(rejected), 0)::int as rejected, max(last_delivery_at) as last_delivery_at,
                max(last_rejected_at) as last_rejected_at,
                (array_agg(last_rejection_reason order by last_rejected_at desc nulls last))[1] as last_rejection_reason
         from payin_webhook_counter where provider_id = ? and deleted_at is null`,
        [providerId]
      ),
      this.db().raw(
        `select coalesce(sum(count) filter (where kind = ?), 0)::int as accepted,
                coalesce(sum(count) filter (where kind = ?), 0)::int as duplicates,
                coalesce(sum(count) filter (where kind like ?), 0)::int as rejected,
                max(last_at) as last_delivery_at, max(last_at) filter (where kind like ?) as last_rejected_at,
                (array_agg(coalesce(detail, kind) order by last_at desc) filter (where kind like ?))[1] as last_rejection_reason
         from payin_health_counter where provider_id = ? and kind like 'webhook:%' and deleted_at is null`,
        [WEBHOOK_KIND.accepted, WEBHOOK_KIND.duplicate, refused, refused, refused, providerId]
      ),
      this.db().raw(
        `select count(*)::int as failed from payin_webhook_event
         where state = 'failed' and provider_id = ? and deleted_at is null`,
        [providerId]
      ),
      this.db().raw(
        `select updated_at as last_at, last_error from payin_webhook_event
         where provider_id = ? and last_error is not null and deleted_at is null order by updated_at desc limit 1`,
        [providerId]
      ),
    ])
    const [d, m] = [days.rows[0], minutes.rows[0]]
    const latest = (a: Date | null, b: Date | null) => (!a ? b : !b ? a : new Date(a) >= new Date(b) ? a : b)
    const lastRejectedAt = latest(d.last_rejected_at, m.last_rejected_at)
    const lastRejectionReason = lastRejectedAt && m.last_rejected_at && +new Date(lastRejectedAt) === +new Date(m.last_rejected_at) ? m.last_rejection_reason : d.last_rejection_reason
    const e = lastError.rows[0] ?? { last_at: null, last_error: null }
    const rejectedLater = lastRejectedAt && (!e.last_at || new Date(lastRejectedAt) >= new Date(e.last_at))
    return {
      accepted: d.accepted + m.accepted,
      duplicates: d.duplicates + m.duplicates,
      rejected: d.rejected + m.rejected,
      failed: failed.rows[0].failed,
      last_delivery_at: latest(d.last_delivery_at, m.last_delivery_at),
      last_failure_at: rejectedLater ? lastRejectedAt : (e.last_at ?? null),
      last_failure_reason: rejectedLater ? lastRejectionReason : (e.last_error ?? null),
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
