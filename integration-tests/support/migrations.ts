// The plugin's migrations as classes, in order, and the SQL each runs up or down (MikroORM's
// Migration only collects addSql() statements: no database connection is needed to read them).
import { readdirSync } from "fs"
import path from "path"

const folder = path.join(__dirname, "..", "..", "src", "modules", "payin", "migrations")

type MigrationClass = new (driver: unknown, config: unknown) => {
  up(): Promise<void>
  down(): Promise<void>
  getQueries(): string[]
}
export type PluginMigration = { name: string; Class: MigrationClass }

export function pluginMigrations(): PluginMigration[] {
  return readdirSync(folder)
    .filter((f) => /^Migration\d+\.ts$/.test(f))
    .sort()
    .map((file) => {
      const mod = require(path.join(folder, file)) as Record<string, MigrationClass>
      return { name: file.replace(/\.ts$/, ""), Class: Object.values(mod)[0] }
    })
}

export async function queriesOf(migration: PluginMigration, direction: "up" | "down"): Promise<string[]> {
  const instance = new migration.Class(null, null)
  await instance[direction]()
  return instance.getQueries()
}

/** Runs a migration's statements in `trx` (a knex transaction or connection); errors name the migration. */
export async function runMigration(trx: { raw(sql: string): Promise<unknown> }, migration: PluginMigration, direction: "up" | "down") {
  for (const sql of await queriesOf(migration, direction)) {
    await trx.raw(sql).catch((e: Error) => {
      throw new Error(`${migration.name} ${direction}: ${e.message}`)
    })
  }
}
