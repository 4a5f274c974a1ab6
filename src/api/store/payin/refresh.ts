/**
 * Refresh on poll: a storefront polling the status of a pay-in whose webhook was lost should not
 * wait for the reconciliation job. The decision is pure; the throttle keeps one lookup per pay-in
 * per LOOKUP_INTERVAL_MS on this instance, however many tabs poll it.
 */

/** One lookup of a pay-in at the service per this interval, per Medusa instance. */
export const LOOKUP_INTERVAL_MS = 15_000
/** Pay-ins remembered by the throttle at most (older entries are dropped first). */
export const MAX_THROTTLE_ENTRIES = 10_000

/**
 * True when a not-final pay-in is due for a lookup: its payment window has passed (the expiry
 * callback may be lost), or it is older than the plugin's `reconcileAfterSeconds` (the age after
 * which the reconciliation job would look it up too).
 */
export function dueForLookup(
  row: { created_at?: unknown; expires_at?: unknown },
  final: boolean,
  now: Date,
  reconcileAfterSeconds: number
): boolean {
  if (final) return false
  const expires = time(row.expires_at)
  if (expires !== null && expires <= now.getTime()) return true
  const created = time(row.created_at)
  return created !== null && now.getTime() - created >= reconcileAfterSeconds * 1000
}

function time(value: unknown): number | null {
  if (value === null || value === undefined || value === "") return null
  const t = value instanceof Date ? value.getTime() : new Date(value as string).getTime()
  return Number.isNaN(t) ? null : t
}

/** Remembers when each pay-in was last looked up; bounded (oldest entries evicted first). */
export class LookupThrottle {
  private readonly last = new Map<string, number>()

  constructor(
    private readonly intervalMs = LOOKUP_INTERVAL_MS,
    private readonly maxEntries = MAX_THROTTLE_ENTRIES
  ) {}

  /**
   * True (and the lookup recorded) when `id` was not looked up within the interval. Recorded
   * before the lookup runs, so concurrent polls of one pay-in make one lookup.
   */
  tryAcquire(id: string, now: number): boolean {
    const previous = this.last.get(id)
    if (previous !== undefined && now - previous < this.intervalMs) {
      return false
    }
    // re-inserted: the map's order stays oldest-first, so eviction drops the oldest
    this.last.delete(id)
    this.last.set(id, now)
    this.evict()
    return true
  }

  get size(): number {
    return this.last.size
  }

  /** Drops the oldest entries beyond the bound (map order is oldest lookup first). */
  private evict(): void {
    while (this.last.size > this.maxEntries) {
      const oldest = this.last.keys().next().value
      if (oldest === undefined) break
      this.last.delete(oldest)
    }
  }
}
