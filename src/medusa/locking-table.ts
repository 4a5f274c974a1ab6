import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"

/**
 * Medusa's locking-postgres provider keeps its locks as rows of the table `locking` (id,
 * owner_id, expiration) and never hands an expired one to another owner: a process killed while
 * holding a lock would block its key for good. The expired row is removed here. Other providers
 * (Redis, in-memory) expire locks themselves; without the table this is a no-op.
 */
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

/** Whether the store keeps locks in locking-postgres's table, with the columns read above. */
export async function lockingTableColumns(container: MedusaContainer): Promise<string[] | null> {
  const pg = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  const { rows } = await pg.raw("select column_name from information_schema.columns where table_name = 'locking' and table_schema = current_schema()")
  return rows.length ? rows.map((r: { column_name: string }) => r.column_name) : null
}
