import { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"

/**
 * Holds `key` through Medusa's locking module while `job` runs, across processes when a shared
 * provider (locking-postgres, locking-redis) is configured. It takes the lock as a row with an
 * expiry (acquire/release) rather than `execute`, which with locking-postgres keeps a database
 * connection open for the whole job: under load that exhausts the pool the job itself needs.
 */
export async function withLock<T>(
  container: MedusaContainer,
  key: string,
  job: () => Promise<T>,
  { waitMs = 60_000, expireSeconds = 120 } = {}
): Promise<T> {
  const locking = container.resolve(Modules.LOCKING)
  const ownerId = `payin-${process.pid}-${Math.random().toString(36).slice(2)}`
  const deadline = Date.now() + waitMs
  for (let attempt = 0; ; attempt++) {
    try {
      await locking.acquire(key, { ownerId, expire: expireSeconds })
      break
    } catch {
      if (Date.now() > deadline) {
        throw new Error(`Timed out after ${waitMs} ms waiting for the lock ${key}`)
      }
      await new Promise((r) => setTimeout(r, Math.min(200, 10 * 2 ** Math.min(attempt, 4)) * (0.5 + Math.random())))
    }
  }
  try {
    return await job()
  } finally {
    await locking.release(key, { ownerId }).catch(() => undefined)
  }
}
