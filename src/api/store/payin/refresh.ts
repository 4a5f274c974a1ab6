// A storefront polling a pay-in whose webhook was lost should not wait for the reconciliation job.

export const LOOKUP_INTERVAL_MS = 15_000
export const MAX_THROTTLE_ENTRIES = 10_000

/** Due when its window has passed (the expiry callback may be lost) or it is older than `reconcileAfterSeconds`. */
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

export class LookupThrottle {
  private readonly last = new Map<string, number>()

  constructor(
    private readonly intervalMs = LOOKUP_INTERVAL_MS,
    private readonly maxEntries = MAX_THROTTLE_ENTRIES
  ) {}

  /** Recorded before the lookup runs, so concurrent polls of one pay-in make one lookup. */
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

  private evict(): void {
    while (this.last.size > this.maxEntries) {
      const oldest = this.last.keys().next().value
      if (oldest === undefined) break
      this.last.delete(oldest)
    }
  }
}
