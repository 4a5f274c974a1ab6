// SQL statements a piece of work sends to PostgreSQL, through the knex connection every Medusa
// module shares (__pg_connection__; MikroORM's queries go through it too), attributed to the plugin
// (its payin_* tables, its locks: keys `payin:…`) or to Medusa (everything else). Only meaningful
// while nothing else runs in the process.
import type { MedusaContainer } from "@medusajs/framework/types"

export type Statement = { sql: string; owner: "plugin" | "medusa" }
export type StatementCount = { plugin: number; medusa: number; statements: Statement[] }

/** A statement on one of the plugin's tables (not one that only quotes a `payin_` key in its data). */
const PLUGIN_SQL = /\b(from|into|update|join)\s+"?payin_[a-z_]+/i
const LOCKING_SQL = /\b(from|into|update)\s+"?locking\b/i

const CONTROL = /^\s*(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SET LOCAL)\b/i

function ownerOf(sql: string, bindings: unknown[] | undefined): Statement["owner"] {
  if (PLUGIN_SQL.test(sql)) return "plugin"
  if (LOCKING_SQL.test(sql) && (sql.includes("'payin:") || (bindings ?? []).some((b) => typeof b === "string" && b.startsWith("payin:")))) return "plugin"
  return "medusa"
}

/** Runs `work` and counts what it sent, by owner (transaction control statements included). */
export async function countStatements<T>(container: MedusaContainer, work: () => Promise<T>): Promise<{ result: T } & StatementCount> {
  const knex = container.resolve("__pg_connection__") as { on(e: string, f: (q: any) => void): void; off(e: string, f: (q: any) => void): void }
  const statements: Statement[] = []
  const listener = (q: { sql: string; bindings?: unknown[] }) => statements.push({ sql: q.sql, owner: ownerOf(q.sql, q.bindings) })
  knex.on("query", listener)
  try {
    const result = await work()
    // a transaction's BEGIN and COMMIT belong to whoever opened it: the owner of the statements inside
    statements.forEach((st, i) => {
      if (/^\s*(BEGIN|START TRANSACTION)\b/i.test(st.sql)) st.owner = statements.slice(i + 1).find((n) => !CONTROL.test(n.sql))?.owner ?? st.owner
      else if (/^\s*(COMMIT|ROLLBACK)\b/i.test(st.sql)) st.owner = [...statements.slice(0, i)].reverse().find((n) => !CONTROL.test(n.sql))?.owner ?? st.owner
    })
    return { result, statements, plugin: statements.filter((s) => s.owner === "plugin").length, medusa: statements.filter((s) => s.owner === "medusa").length }
  } finally {
    knex.off("query", listener)
  }
}
