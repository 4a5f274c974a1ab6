import { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { clearExpiredLock, locksInTable, releaseTableLock, takeTableLock } from "../medusa"

/** Takes or extends `key` for `ownerId`; false while another owner holds it unexpired. */
export async function tryLock(container: MedusaContainer, key: string, ownerId: string, expire: number): Promise<boolean> {
  if (locksInTable(container)) return takeTableLock(container, key, ownerId, expire)
  const locking = container.resolve(Modules.LOCKING)
  try {
    await locking.acquire(key, { ownerId, expire })
    return true
  } catch {
    await clearExpiredLock(container, key)
    return locking.acquire(key, { ownerId, expire }).then(
      () => true,
      () => false
    )
  }
}

async function extendLock(container: MedusaContainer, key: string, ownerId: string, expire: number): Promise<boolean> {
  if (locksInTable(container)) return takeTableLock(container, key, ownerId, expire)
  await container.resolve(Modules.LOCKING).acquire(key, { ownerId, expire })
  return true
}

export type LockOptions = {
  expireSeconds: number
  waitMs: number
}

// a booking that waited in vain is retried (the inbox backs off); a held lock never stalls a worker slot for long
export const PAYIN_LOCK_WAIT_MAX_MS = 5_000

export function payinLockOptions(lockTtlSeconds: number): LockOptions {
  return { expireSeconds: lockTtlSeconds, waitMs: Math.min(PAYIN_LOCK_WAIT_MAX_MS, (lockTtlSeconds * 1000) / 2) }
}

export class LockTimeoutError extends Error {
  constructor(key: string, waitMs: number) {
    super(`Timed out after ${waitMs} ms waiting for the lock ${key} (another process holds it; it expires by itself)`)
    this.name = "LockTimeoutError"
  }
}

export class LockLostError extends Error {
  constructor(key: string, why: string) {
    super(`Lost the lock ${key}: ${why}`)
    this.name = "LockLostError"
  }
}

export type LockHold = {
  key: string
  signal: AbortSignal
  throwIfLost(): void
}

/** acquire/release, not `execute`: with locking-postgres that holds a pool connection for the whole job, exhausting the pool under load. */
export async function withLock<T>(
  container: MedusaContainer,
  key: string,
  job: (hold: LockHold) => Promise<T>,
  { waitMs, expireSeconds }: LockOptions
): Promise<T> {
  const ownerId = `payin-${process.pid}-${Math.random().toString(36).slice(2)}`
  const deadline = Date.now() + waitMs
  for (let attempt = 0; !(await tryLock(container, key, ownerId, expireSeconds)); attempt++) {
    if (Date.now() > deadline) {
      throw new LockTimeoutError(key, waitMs)
    }
    await new Promise((r) => setTimeout(r, Math.min(200, 10 * 2 ** Math.min(attempt, 4)) * (0.5 + Math.random())))
  }
  const renewal = keepExtended(container, key, ownerId, expireSeconds)
  try {
    return await job(renewal.hold)
  } finally {
    renewal.stop()
    await releaseLock(container, key, ownerId).catch(() => undefined)
  }
}

async function releaseLock(container: MedusaContainer, key: string, ownerId: string): Promise<void> {
  if (locksInTable(container)) return releaseTableLock(container, key, ownerId)
  await container.resolve(Modules.LOCKING).release(key, { ownerId })
}

function keepExtended(container: MedusaContainer, key: string, ownerId: string, expireSeconds: number) {
  const controller = new AbortController()
  const lifetimeMs = expireSeconds * 1000
  const everyMs = Math.max(250, Math.floor(lifetimeMs / 3))
  let renewedAt = Date.now()
  let stopped = false
  let timer: NodeJS.Timeout | null = null
  const lose = (why: string) => {
    if (controller.signal.aborted) return
    controller.abort(new LockLostError(key, why))
    container.resolve("logger").warn(`payin: lost the lock ${key} while its job ran (${why}); the job stops before its next step`)
  }
  const renew = async () => {
    if (stopped) return
    // past its expiry another process may have taken it (and released it): never re-taken silently
    if (Date.now() - renewedAt >= lifetimeMs) {
      lose(`not extended within its ${expireSeconds} s lifetime`)
      return
    }
    const sentAt = Date.now()
    try {
      // the providers extend a key its owner holds (and refuse one another owner holds)
      if (!(await extendLock(container, key, ownerId, expireSeconds))) throw new Error(`"${key}" is held by another owner`)
    } catch (error) {
      lose(`the extension failed: ${error instanceof Error ? error.message : String(error)}`)
      return
    }
    renewedAt = sentAt
    schedule()
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => void renew(), everyMs)
    timer.unref?.()
  }
  schedule()
  const hold: LockHold = {
    key,
    signal: controller.signal,
    throwIfLost() {
      if (!stopped && !controller.signal.aborted && Date.now() - renewedAt >= lifetimeMs) {
        lose(`not extended within its ${expireSeconds} s lifetime`)
      }
      if (controller.signal.aborted) throw controller.signal.reason
    },
  }
  return {
    hold,
    stop() {
      stopped = true
      if (timer) clearTimeout(timer)
    },
  }
}
