import { createHash } from "crypto"
import type { ServiceBank } from "./banks"

export const BANKS_FRESH_MS = 60_000
export const BANKS_STALE_MS = 15 * 60_000
/** After a failed fetch, the service is left alone this long (the stale list or the 503 answered at once). */
export const BANKS_RETRY_AFTER_MS = 5_000
const MAX_ENTRIES = 256

export type BanksSnapshot = {
  banks: ServiceBank[]
  currencies: string[] | null
  fetchedAt: number
}

/** The API key only as a hash; a key or URL changed from the admin gives another key, so an old account's list is never served, not even stale. */
export function banksCacheKey(instanceId: string, baseUrl: string, apiKey: string): string {
  const keyHash = createHash("sha256").update(apiKey).digest("hex").slice(0, 16)
  return `${instanceId}\n${baseUrl}\n${keyHash}`
}

export type Freshness = "fresh" | "stale" | "expired"

export function freshness(fetchedAt: number, now: number): Freshness {
  const age = now - fetchedAt
  if (age < BANKS_FRESH_MS) return "fresh"
  if (age < BANKS_STALE_MS) return "stale"
  return "expired"
}

type Entry = {
  key: string
  snapshot: BanksSnapshot | null
  inflight: Promise<BanksSnapshot> | null
  failedAt: number
  lastError: unknown
}

export class BanksUnavailableError extends Error {
  constructor(readonly cause: unknown) {
    super("The payment service's bank list is unavailable and none is cached")
    this.name = "BanksUnavailableError"
  }
}

export class BanksCache {
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly now: () => number = Date.now) {}

  /** Concurrent callers share one fetch; `onError` hears each failed fetch once, whoever waited on it. */
  async get(
    instanceId: string,
    key: string,
    fetch: (previous: BanksSnapshot | null) => Promise<Omit<BanksSnapshot, "fetchedAt">>,
    onError?: (error: unknown) => void
  ): Promise<{ snapshot: BanksSnapshot; stale: boolean }> {
    let entry = this.entries.get(instanceId)
    if (!entry || entry.key !== key) {
      entry = { key, snapshot: null, inflight: null, failedAt: 0, lastError: null }
      this.entries.delete(instanceId)
      this.entries.set(instanceId, entry)
      this.evict()
    }
    if (entry.snapshot && freshness(entry.snapshot.fetchedAt, this.now()) === "fresh") {
      return { snapshot: entry.snapshot, stale: false }
    }
    const current = entry
    if (!current.inflight && this.now() - current.failedAt < BANKS_RETRY_AFTER_MS) {
      // the service just failed: do not make every shopper wait for it to fail again
      return this.fallback(current, current.lastError)
    }
    if (!current.inflight) {
      current.inflight = fetch(current.snapshot)
        .then((data) => {
          const snapshot = { ...data, fetchedAt: this.now() }
          current.snapshot = snapshot
          current.failedAt = 0
          current.lastError = null
          return snapshot
        })
        .catch((error) => {
          current.failedAt = this.now()
          current.lastError = error
          onError?.(error)
          throw error
        })
        .finally(() => {
          current.inflight = null
        })
    }
    try {
      return { snapshot: await current.inflight, stale: false }
    } catch (error) {
      return this.fallback(current, error)
    }
  }

  private fallback(entry: Entry, error: unknown): { snapshot: BanksSnapshot; stale: boolean } {
    if (entry.snapshot && freshness(entry.snapshot.fetchedAt, this.now()) !== "expired") {
      return { snapshot: entry.snapshot, stale: true }
    }
    throw new BanksUnavailableError(error)
  }

  clear(): void {
    this.entries.clear()
  }

  private evict(): void {
    while (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value
      if (oldest === undefined) break
      this.entries.delete(oldest)
    }
  }
}
