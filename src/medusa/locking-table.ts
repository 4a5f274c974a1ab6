import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"

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
