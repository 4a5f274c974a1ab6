// Long polling of GET /store/payin/status across processes: the server that holds the request is
// not the worker that books the webhook, so no in-process event can wake it. Every held request of
// this process waits on one shared ticker that re-reads, for all watched pay-ins at once, only
// their `updated_at` (one primary-key read per tick, never the service); a changed row wakes its
// waiters, which rebuild the answer and compare its view_tag.

/** How often held requests re-read their pay-ins' versions. */
export const WATCH_INTERVAL_MS = 200
/** Beyond this many pay-ins watched by one process a wait is answered at once (the kit then polls on its delays). */
export const MAX_WATCHED_PAYINS = 5_000
const READ_BATCH = 500

/** `updated_at` in ms of each id still present (every ledger write that changes what the status answer shows sets it). */
export type VersionReader = (ids: string[]) => Promise<Map<string, number>>

type Waiter = { version: number | null; wake: () => void }

export class PayinWatch {
  private readonly waiters = new Map<string, Set<Waiter>>()
  private timer: ReturnType<typeof setTimeout> | undefined
  private reading = false
  private reader: VersionReader | undefined

  constructor(private readonly intervalMs = WATCH_INTERVAL_MS, private readonly maxWatched = MAX_WATCHED_PAYINS) {}

  /** Resolves `woken` once the row's version differs from `version`; null when this process watches too many pay-ins. */
  watch(id: string, version: number | null, reader: VersionReader): { woken: Promise<void>; cancel: () => void } | null {
    let set = this.waiters.get(id)
    if (!set && this.waiters.size >= this.maxWatched) return null
    if (!set) this.waiters.set(id, (set = new Set()))
    this.reader = reader
    let wake!: () => void
    const woken = new Promise<void>((resolve) => (wake = resolve))
    const waiter: Waiter = { version, wake }
    set.add(waiter)
    this.arm()
    return { woken, cancel: () => this.remove(id, waiter) }
  }

  get watched(): number {
    return this.waiters.size
  }

  private remove(id: string, waiter: Waiter): void {
    const set = this.waiters.get(id)
    if (!set) return
    set.delete(waiter)
    if (!set.size) this.waiters.delete(id)
    if (!this.waiters.size && this.timer) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
  }

  private arm(): void {
    if (this.timer || this.reading || !this.waiters.size) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.tick()
    }, this.intervalMs)
    this.timer.unref?.()
  }

  private async tick(): Promise<void> {
    const reader = this.reader
    if (!reader) return
    this.reading = true
    try {
      const ids = [...this.waiters.keys()]
      for (let i = 0; i < ids.length; i += READ_BATCH) {
        const batch = ids.slice(i, i + READ_BATCH)
        const versions = await reader(batch)
        for (const id of batch) {
          const now = versions.get(id) ?? null
          for (const waiter of [...(this.waiters.get(id) ?? [])]) {
            if (waiter.version !== now) {
              this.remove(id, waiter)
              waiter.wake()
            }
          }
        }
      }
    } catch {
      // a failed read wakes nobody: the next tick reads again, and every wait ends on its deadline
    } finally {
      this.reading = false
      this.arm()
    }
  }
}

/** Milliseconds of a row's `updated_at` as the ledger returns it. */
export function versionOf(updatedAt: unknown): number | null {
  if (updatedAt === null || updatedAt === undefined) return null
  const t = updatedAt instanceof Date ? updatedAt.getTime() : new Date(updatedAt as string).getTime()
  return Number.isNaN(t) ? null : t
}
