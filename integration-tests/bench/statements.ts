// SQL statements a piece of work sends to PostgreSQL, counted on the knex connection every Medusa
// module shares (__pg_connection__: MikroORM's queries, the link modules', locking-postgres's and
// the plugin's raw SQL all go through it; `unsharedConnections` names a module that would not), and
// attributed to the plugin or to Medusa:
// - "plugin": its tables (payin_*), its locks (`locking` rows of keys `payin:…`), and whatever a
//   call from the plugin's own code issued (a Medusa service it called, the provider's hooks that
//   Medusa's workflow called), found by the issuing call's stack;
// - "medusa": everything else (Medusa's workflows, steps and subscribers).
// Only what `work` itself awaits is counted (AsyncLocalStorage): a job or a drain of the same
// process running meanwhile is not.
import { AsyncLocalStorage } from "async_hooks"
import path from "path"
import type { MedusaContainer } from "@medusajs/framework/types"
import { MedusaModule } from "@medusajs/framework/modules-sdk"

export type Owner = "plugin" | "medusa"
export type Statement = {
  sql: string
  bindings: unknown[]
  owner: Owner
  /** The plugin's innermost frame (file:line under src/) when its code issued it. */
  site: string | null
}
export type StatementCount = { plugin: number; medusa: number; statements: Statement[] }

const SRC = path.resolve(__dirname, "..", "..", "src") + path.sep
const APP_SRC = path.resolve(__dirname, "..", "app", "src") + path.sep
/** A statement on one of the plugin's tables (not one that only quotes a `payin_` key in its data). */
const PLUGIN_SQL = /\b(from|into|update|join)\s+"?payin_[a-z_]+/i
const LOCKING_SQL = /\b(from|into|update)\s+"?locking\b/i
const CONTROL = /^\s*(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SAVEPOINT|RELEASE SAVEPOINT|SET LOCAL)\b/i
/** Frames where Medusa's own machinery takes over: what runs below them is Medusa's, whoever started the workflow. */
const MEDUSA_RUNS = /[\\/]@medusajs[\\/](core-flows|workflows-sdk|orchestration|workflow-engine-[a-z]+|event-bus-[a-z]+)[\\/]/

const scope = new AsyncLocalStorage<Statement[]>()

function frames(stack: string | undefined): string[] {
  return (stack ?? "").split("\n").slice(1).map((l) => l.trim())
}

/** From the innermost frame out: the plugin's code first (its site), or Medusa's workflow machinery first (null). */
function pluginSite(stack: string | undefined): string | null {
  for (const frame of frames(stack)) {
    if (MEDUSA_RUNS.test(frame)) return null
    const at = frame.match(/\(?((?:\/|[A-Za-z]:)[^():]+):(\d+):\d+\)?$/)
    if (!at) continue
    const file = at[1]
    if (file.includes(`${path.sep}node_modules${path.sep}`)) continue
    if (file.startsWith(SRC) || file.startsWith(APP_SRC)) return `${path.relative(SRC, file.startsWith(APP_SRC) ? SRC + file.slice(APP_SRC.length) : file)}:${at[2]}`
  }
  return null
}

function ownerOf(sql: string, bindings: unknown[], site: string | null): Owner {
  if (PLUGIN_SQL.test(sql)) return "plugin"
  if (LOCKING_SQL.test(sql)) {
    const keyed = sql.includes("'payin:") || bindings.some((b) => typeof b === "string" && b.startsWith("payin:"))
    return keyed ? "plugin" : "medusa"
  }
  return site ? "plugin" : "medusa"
}

type Knex = { on(e: string, f: (q: any) => void): void; off(e: string, f: (q: any) => void): void }
const listening = new WeakSet<object>()

/** One listener per knex instance for the process's life: it records into the scope of the work that sent the statement. */
function listen(knex: Knex): void {
  if (listening.has(knex)) return
  listening.add(knex)
  knex.on("query", (q: { sql: string; bindings?: unknown[] }) => {
    const into = scope.getStore()
    if (!into) return
    const bindings = [...(q.bindings ?? [])]
    const site = pluginSite(new Error().stack)
    into.push({ sql: q.sql, bindings, owner: ownerOf(q.sql, bindings, site), site })
  })
}

/** Runs `work` and counts what it sent, by owner (transaction control statements included). */
export async function countStatements<T>(container: MedusaContainer, work: () => Promise<T>): Promise<{ result: T } & StatementCount> {
  listen(container.resolve("__pg_connection__") as Knex)
  const statements: Statement[] = []
  const result = await scope.run(statements, work)
  // a transaction's BEGIN, SAVEPOINT and COMMIT belong to whoever's statements it holds
  statements.forEach((st, i) => {
    if (!CONTROL.test(st.sql)) return
    const opens = /^\s*(BEGIN|START TRANSACTION|SAVEPOINT|SET LOCAL)\b/i.test(st.sql)
    const near = opens ? statements.slice(i + 1) : statements.slice(0, i).reverse()
    st.owner = near.find((n) => !CONTROL.test(n.sql))?.owner ?? st.owner
  })
  const plugin = statements.filter((s) => s.owner === "plugin").length
  return { result, statements, plugin, medusa: statements.length - plugin }
}

/** Modules whose MikroORM manager runs on a connection other than `__pg_connection__` (whose statements countStatements would miss). */
export function unsharedConnections(container: MedusaContainer): string[] {
  const shared = container.resolve("__pg_connection__")
  const out: string[] = []
  for (const loaded of MedusaModule.getLoadedModules() as Record<string, any>[]) {
    for (const [name, service] of Object.entries(loaded)) {
      let manager: any
      try {
        manager = service?.__container__?.manager
      } catch {
        continue // an awilix cradle throws on a name it does not hold: no database
      }
      const knex = manager?.getConnection?.()?.getKnex?.()
      if (knex && knex !== shared) out.push(name)
    }
  }
  return out
}

/** One line per statement: owner, the plugin's site, the SQL on one line. */
export function statementLines(statements: Statement[], owner?: Owner): string[] {
  return statements
    .filter((st) => !owner || st.owner === owner)
    .map((st) => `${st.owner}\t${st.site ?? "-"}\t${st.sql.replace(/\s+/g, " ").trim()}`)
}

/**
 * The plugin's own statements per booking of a `closed` webhook that captures a placed order
 * (issue 40): 12 at most, the inbox's 3 (the route stores the entry, the drain claims it, settles
 * its outcome) included, so 9 for applying it with locking-postgres (its lock: take and release).
 */
export const PLUGIN_BOOKING_BUDGET = { total: 12, inbox: 3, apply: 9 } as const

/** "N statements: Medusa's M, the plugin's P" and the plugin's own, one a line (a benchmark's report). */
export function statementSummary(count: StatementCount, label = "per booking"): string[] {
  return [
    `${count.plugin + count.medusa} statements ${label}: Medusa's ${count.medusa}, the plugin's ${count.plugin}`,
    ...statementLines(count.statements, "plugin").map((line) => `  ${line}`),
  ]
}
