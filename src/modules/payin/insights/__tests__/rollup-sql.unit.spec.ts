// The rollups' rule exists in SQL (the migrations' literals, stable once released) and in
// src/status.ts (its owner). This reads the SQL of the latest migration defining each part of the
// rule and fails when it says something else than status.ts: a change of the vocabulary then
// needs a new migration.
import { readdirSync } from "fs"
import path from "path"
import { FUNNEL_PARTS, INSIGHT_FLAGS, LEDGER_STATUSES, funnelPartOf } from "../../../../status"

const folder = path.join(__dirname, "..", "..", "migrations")

type MigrationClass = new (driver: unknown, config: unknown) => { up(): Promise<void>; getQueries(): string[] }

/** The SQL that the last migration defining `marker` runs up, with its name. */
async function latestDefining(marker: RegExp): Promise<{ name: string; sql: string }> {
  let found: { name: string; sql: string } | null = null
  for (const file of readdirSync(folder).filter((f) => /^Migration\d+\.ts$/.test(f)).sort()) {
    const Class = Object.values(require(path.join(folder, file)) as Record<string, MigrationClass>)[0]
    const migration = new Class(null, null)
    await migration.up()
    const sql = migration.getQueries().filter((q) => marker.test(q)).join("\n")
    if (sql) found = { name: file, sql }
  }
  if (!found) throw new Error(`no migration defines ${marker}`)
  return found
}

const list = (text: string) => [...text.matchAll(/'([^']*)'/g)].map((m) => m[1])

describe("the rollups' SQL says what src/status.ts says", () => {
  it("payin_rollup_part puts each status, paid or not, in funnelPartOf's part", async () => {
    const { sql } = await latestDefining(/function payin_rollup_part\(/)
    const body = sql.slice(sql.indexOf("select case"), sql.indexOf("end $$"))
    expect(body).toMatch(/^select case when paid then 'paid'\s/)
    const arms = [...body.matchAll(/when status in \(([^)]*)\) then '(\w+)'/g)].map((m) => ({ statuses: list(m[1]), part: m[2] }))
    expect(arms.length).toBeGreaterThan(0)
    // every literal of the CASE is one of its arms (nothing the parsing missed)
    expect(body.replace(/when status in \([^)]*\) then '\w+'/g, "").match(/'/g)).toHaveLength(2)
    const sqlPart = (status: string, paid: boolean) => (paid ? "paid" : (arms.find((a) => a.statuses.includes(status))?.part ?? null))
    for (const status of LEDGER_STATUSES) {
      for (const paid of [false, true]) {
        expect([status, paid, sqlPart(status, paid)]).toEqual([status, paid, funnelPartOf(status, { paid })])
      }
    }
  })

  it("each funnel part, and each flag figure with its amount, is counted from status.ts's sets", async () => {
    const { sql } = await latestDefining(/function payin_rollup_statement\(/)
    for (const part of FUNNEL_PARTS) expect(sql).toMatch(new RegExp(`s \\* \\(part = '${part}'\\)::int as ${part}\\b`))
    for (const [figure, { flags, amount }] of Object.entries(INSIGHT_FLAGS)) {
      const counted = new RegExp(`s \\* \\(f \\?\\| array\\[([^\\]]*)\\]\\)::int as ${figure},`).exec(sql)
      expect([figure, counted && list(counted[1])]).toEqual([figure, [...flags]])
      const array = `array[${flags.map((f) => `'${f}'`).join(", ")}]`
      const sum = amount ? `payin_rollup_num(f -> '${flags[0]}' ->> '${amount}')` : `case when f ?| ${array} then received else 0 end`
      expect(sql).toContain(`s * ${sum} as ${figure}_amount`)
    }
    // no flag read that status.ts does not name
    const read = [...sql.matchAll(/f \?\| array\[([^\]]*)\]|f -> '(\w+)'/g)].flatMap((m) => (m[1] ? list(m[1]) : [m[2]]))
    const named = Object.values(INSIGHT_FLAGS).flatMap((f) => f.flags as readonly string[])
    expect([...new Set(read)].sort()).toEqual([...new Set(named)].sort())
  })

  it("an update of any column the rule reads recounts the row, and only those are compared", async () => {
    const { sql } = await latestDefining(/function payin_rollup_statement\(/)
    const read = new Set([...sql.matchAll(/\bx\.(\w+)/g)].map((m) => m[1]).filter((c) => c !== "s"))
    const compared = /\(((?:n\.\w+, )*n\.\w+)\) is not distinct from/.exec(sql)?.[1].split(", ").map((c) => c.slice(2))
    expect(read.size).toBeGreaterThan(10)
    expect([...(compared ?? [])].sort()).toEqual([...read].sort())
    for (const column of ["flags", "captured_at", "pay_again_until", "status", "paid_at"]) expect(read).toContain(column)
  })
})
