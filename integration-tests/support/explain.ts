// EXPLAIN of statements captured from knex's "query" event (the driver's SQL with $1… placeholders
// and its values), as PostgreSQL plans them: nothing is run (no ANALYZE), so a DELETE is safe.
type PlanNode = { "Node Type": string; "Relation Name"?: string; "Index Name"?: string; Plans?: PlanNode[] }
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)]

export type Statement = { sql: string; bindings: unknown[] }
type Knex = { client: { acquireConnection(): Promise<any>; releaseConnection(c: unknown): Promise<unknown> } }

/** For each statement: its SQL (whitespace collapsed) and the plan's node types on `relation`. */
export async function planNodesOn(knex: Knex, statements: Statement[], relation: string): Promise<{ sql: string; types: string[] }[]> {
  const connection = await knex.client.acquireConnection()
  try {
    const plans: { sql: string; types: string[] }[] = []
    for (const statement of statements) {
      const { rows } = await connection.query(`explain (format json) ${statement.sql}`, statement.bindings)
      const raw = rows[0]["QUERY PLAN"]
      const plan = (typeof raw === "string" ? JSON.parse(raw) : raw)[0].Plan as PlanNode
      const on = nodes(plan).filter((n) => n["Relation Name"] === relation)
      plans.push({ sql: statement.sql.replace(/\s+/g, " "), types: on.map((n) => n["Node Type"]) })
    }
    return plans
  } finally {
    await knex.client.releaseConnection(connection)
  }
}
