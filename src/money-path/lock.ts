import { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"

/**
 * Medusa's locking-postgres provider never hands a lock over to another owner, even after its
 * expiry passed: a process killed while holding one (a deploy, a crash) would block that key for
 * good. Its row is removed here once expired. Other providers (Redis, in-memory) expire locks
 * themselves; without the `locking` table this is a no-op.
 */
let lockingTableMissing = false
async function clearExpiredLock(container: MedusaContainer, key: string): Promise<void> {
  if (lockingTableMissing) return
  try {
    const pg = container.resolve(ContainerRegistrationKeys.PG_CONNECTION) as { raw(sql: string, b: unknown[]): Promise<unknown> }
    await pg.raw("delete from locking where id = ? and expiration is not null and expiration < now()", [key])
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") lockingTableMissing = true
  }
}

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

/** The per-pay-in lock of the plugin's options: its TTL, and a wait that ends before the TTL (at most 10 s). */
export function payinLockOptions(lockTtlSeconds: number): LockOptions {
  return { expireSeconds: lockTtlSeconds, waitMs: Math.min(10_000, (lockTtlSeconds * 1000) / 2) }
}

export class LockTimeoutError extends Error {
  constructor(key: string, waitMs: number) {
    super(`Timed out after ${waitMs} ms waiting for the lock ${key} (another process holds it; it expires by itself)`)
    this.name = "LockTimeoutError"
  }
}

/**
 * Holds `key` through Medusa's locking module while `job` runs, across processes when a shared
 * provider (locking-redis, locking-postgres) is configured. It takes the lock as a key with an
 * expiry (acquire/release) rather than `execute`, which with locking-postgres keeps a database
 * connection open for the whole job: under load that exhausts the pool the job itself needs.
 */
export async function withLock<T>(container: MedusaContainer, key: string, job: () => Promise<T>, { waitMs, expireSeconds }: LockOptions): Promise<T> {
  const locking = container.resolve(Modules.LOCKING)
  const ownerId = `payin-${process.pid}-${Math.random().toString(36).slice(2)}`
  const deadline = Date.now() + waitMs
  for (let attempt = 0; !(await tryLock(container, key, ownerId, expireSeconds)); attempt++) {
    if (Date.now() > deadline) {
      throw new LockTimeoutError(key, waitMs)
    }
    await new Promise((r) => setTimeout(r, Math.min(200, 10 * 2 ** Math.min(attempt, 4)) * (0.5 + Math.random())))
  }
  const held = Date.now()
  try {
    return await job()
  } finally {
    const heldMs = Date.now() - held
    if (heldMs > (expireSeconds * 1000) / 2) {
      // past half its lifetime another process could have taken it: say so, the TTL is too short
      container
        .resolve("logger")
        .warn(`payin: held the lock ${key} for ${heldMs} ms, more than half its ${expireSeconds} s lifetime (plugin option lockTtlSeconds)`)
    }
    await locking.release(key, { ownerId }).catch(() => undefined)
  }
}
