import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { perService } from "./per-service"

// locking-postgres never hands an expired lock over (README.md of this folder); other providers have no table
let lockingTableMissing = false

export async function clearExpiredLock(container: MedusaContainer, key: string): Promise<void> {
  if (lockingTableMissing) return
  try {
    const pg = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
    await pg.raw("delete from locking where id = ? and expiration is not null and expiration < now()", [key])
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") lockingTableMissing = true
  }
}

export async function lockingTableColumns(container: MedusaContainer): Promise<string[] | null> {
  const pg = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  const { rows } = await pg.raw("select column_name from information_schema.columns where table_name = 'locking' and table_schema = current_schema()")
  return rows.length ? rows.map((r: { column_name: string }) => r.column_name) : null
}

const IN_TABLE = Symbol("payin.locks_in_table")

/**
 * Whether the locking module's default provider keeps its locks as rows of the table `locking`
 * (locking-postgres): a probe lock taken through the module, looked for in the table, once per
 * process. Then the plugin takes and releases its own keys in that table itself, in one statement
 * each (locking-postgres spends two on each, and a third to clear an expired lock). Until the probe
 * answered: false (the module's own calls, which keep the same rows), so no lock waits for it.
 */
export function locksInTable(container: MedusaContainer): boolean {
  return probeOf(container).answer ?? false
}

/** The probe's answer, once it came (the first call starts it). */
export function lockingProbed(container: MedusaContainer): Promise<boolean> {
  return probeOf(container).probing
}

type Probe = { probing: Promise<boolean>; answer?: boolean }

function probeOf(container: MedusaContainer): Probe {
  const locking = container.resolve(Modules.LOCKING)
  return perService(locking, IN_TABLE, () => {
    const state: Probe = { probing: probe(container, locking).catch(() => false) }
    void state.probing.then((answer) => (state.answer = answer))
    return state
  })
}

async function probe(container: MedusaContainer, locking: { acquire: Function; release: Function }): Promise<boolean> {
  const key = `payin:probe:${process.pid}:${Math.random().toString(36).slice(2)}`
  const ownerId = `${key}:owner`
  await locking.acquire(key, { ownerId, expire: 30 })
  try {
    const pg = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
    const { rows } = await pg.raw("select owner_id from locking where id = ? and expiration > now()", [key])
    return rows[0]?.owner_id === ownerId
  } finally {
    await locking.release(key, { ownerId }).catch(() => undefined)
  }
}

/**
 * Takes `key` for `ownerId` in locking-postgres's table as its provider would (a row per key: its
 * owner and expiry; a key without expiry is held for good), also when its holder let it expire
 * (the provider never hands such a lock over), and extends it for its owner. True when held.
 */
export async function takeTableLock(container: MedusaContainer, key: string, ownerId: string, expireSeconds: number): Promise<boolean> {
  const pg = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  const { rows } = await pg.raw(
    `insert into locking (id, owner_id, expiration) values (?, ?, now() + (? * interval '1 second'))
     on conflict (id) do update set owner_id = excluded.owner_id, expiration = excluded.expiration
     where locking.owner_id = excluded.owner_id or locking.expiration < now()
     returning id`,
    [key, ownerId, expireSeconds]
  )
  return rows.length > 0
}

export async function releaseTableLock(container: MedusaContainer, key: string, ownerId: string): Promise<void> {
  const pg = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  await pg.raw("delete from locking where id = ? and owner_id = ?", [key, ownerId])
}

/**
 * Whether another owner holds `key` unexpired: one statement on the table, a take-and-release
 * through the module elsewhere. Medusa's completeCartWorkflow holds the key <cart id> from before
 * it links the order until it authorized the payment (or rolled the order back).
 */
export async function lockHeld(container: MedusaContainer, key: string): Promise<boolean> {
  if (locksInTable(container)) {
    const pg = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
    const { rows } = await pg.raw("select 1 from locking where id = ? and (expiration is null or expiration > now())", [key])
    return rows.length > 0
  }
  const locking = container.resolve(Modules.LOCKING)
  const ownerId = `payin-probe-${process.pid}-${Math.random().toString(36).slice(2)}`
  try {
    await locking.acquire(key, { ownerId, expire: 1 })
  } catch {
    return true
  }
  await locking.release(key, { ownerId }).catch(() => undefined)
  return false
}
