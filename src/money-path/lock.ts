import { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { clearExpiredLock } from "../medusa"

/** Takes `key` for `ownerId` until `expire` seconds pass (an expired lock of a dead owner is taken over). False when held. */
export async function tryLock(container: MedusaContainer, key: string, ownerId: string, expire: number): Promise<boolean> {
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

export type LockOptions = {
  /** Lifetime of the lock: a holder killed while holding it blocks the key this long. */
  expireSeconds: number
  /** How long to wait for a held lock before giving up (the caller then answers "later"). */
  waitMs: number
}

/**
 * The longest wait for a pay-in's lock held elsewhere. Below the webhook route's answer deadline
 * (WEBHOOK_ANSWER_DEADLINE_MS, 8 s), so a delivery that waited in vain is still stored and
 * answered "queued" (202) by its own path rather than cut off by the deadline.
 */
export const PAYIN_LOCK_WAIT_MAX_MS = 5_000

/** The per-pay-in lock of the plugin's options: its TTL, and a wait that ends before the TTL (at most PAYIN_LOCK_WAIT_MAX_MS). */
export function payinLockOptions(lockTtlSeconds: number): LockOptions {
  return { expireSeconds: lockTtlSeconds, waitMs: Math.min(PAYIN_LOCK_WAIT_MAX_MS, (lockTtlSeconds * 1000) / 2) }
}

export class LockTimeoutError extends Error {
  constructor(key: string, waitMs: number) {
    super(`Timed out after ${waitMs} ms waiting for the lock ${key} (another process holds it; it expires by itself)`)
    this.name = "LockTimeoutError"
  }
}

/** The lock was lost while its job ran: the job must stop before its next external step and record nothing as done. */
export class LockLostError extends Error {
  constructor(key: string, why: string) {
    super(`Lost the lock ${key}: ${why}`)
    this.name = "LockLostError"
  }
}

/** What a job under withLock holds: aborted once the lock could not be extended. */
export type LockHold = {
  key: string
  signal: AbortSignal
  /** Throws LockLostError once the lock is lost (call it before each external step). */
  throwIfLost(): void
}

/**
 * Holds `key` through Medusa's locking module while `job` runs, across processes when a shared
 * provider (locking-redis, locking-postgres) is configured. It takes the lock as a key with an
 * expiry (acquire/release) rather than `execute`, which with locking-postgres keeps a database
 * connection open for the whole job: under load that exhausts the pool the job itself needs.
 *
 * The lock is extended every third of its lifetime while the job runs (a capture may wait 30 s
 * for Medusa's cart lock), so a slow job keeps it and a dead process's lock still expires after
 * `expireSeconds`. When an extension fails (another owner has the key, the provider is
 * unreachable, or the process stalled past the expiry) the hold's signal is aborted: the job
 * stops at its next check. Jobs with external effects also fence them on the ledger row (effects.ts).
 */
export async function withLock<T>(
  container: MedusaContainer,
  key: string,
  job: (hold: LockHold) => Promise<T>,
  { waitMs, expireSeconds }: LockOptions
): Promise<T> {
  const locking = container.resolve(Modules.LOCKING)
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
    await locking.release(key, { ownerId }).catch(() => undefined)
  }
}

/** Extends `key` for `ownerId` every third of its lifetime until stopped; aborts the hold when an extension fails. */
function keepExtended(container: MedusaContainer, key: string, ownerId: string, expireSeconds: number) {
  const locking = container.resolve(Modules.LOCKING)
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
      await locking.acquire(key, { ownerId, expire: expireSeconds })
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
