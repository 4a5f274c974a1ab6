// The rollups' rule exists in SQL (the migrations' literals, stable once released) and in
// src/status.ts (its owner). This reads the SQL of the latest migration defining each part of the
// rule and fails when it says something else than status.ts: a change of the vocabulary then
// needs a new migration.
import { readdirSync } from "fs"
import path from "path"
import { FUNNEL_PARTS, INSIGHT_AMOUNT_CURRENCY, INSIGHT_FLAGS, LEDGER_STATUSES, funnelPartOf } from "../../../../status"

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

  it("each amount goes to the rollup row of the currency status.ts names: what arrived in its own, what was missing or extra in the one asked", async () => {
    const { sql } = await latestDefining(/function payin_rollup_day_of_ledger\(/)
    const union = sql.slice(sql.indexOf("from (", sql.indexOf("as received\n")) + "from (".length, sql.lastIndexOf(") d group by"))
    const branches = union.split(/\bunion all\b/).map((text) => {
      const [, list, where = ""] = /^\s*select ([\s\S]*?)\s+from v\b(?:\s+where ([\s\S]*))?$/.exec(text.trim()) ?? []
      const items = splitTopLevel(list ?? "")
      const column = (name: string) => items.find((i) => i.endsWith(` as ${name}`))?.slice(0, -` as ${name}`.length)
      return { currency: items[2], where: where.trim(), column }
    })
    expect(branches.map((b) => b.currency).sort()).toEqual(["arrived_currency", "arrived_currency", "currency_code"])
    // the money's currency: the service's, else the pay-in's, both in lower case
    expect(sql).toContain("lower(x.currency_code) as currency_code, lower(coalesce(x.fiat_currency, x.currency_code)) as arrived_currency")
    const sameCurrency = /^case when arrived_currency = currency_code then (.+) else 0 end$/
    for (const [figure, currency] of Object.entries(INSIGHT_AMOUNT_CURRENCY)) {
      const counted = branches.map((b) => ({ ...b, expr: b.column(`${figure}_amount`) })).filter((b) => b.expr !== "0")
      expect([figure, counted.length > 0]).toEqual([figure, true])
      for (const b of counted) {
        if (currency === "asked") {
          expect([figure, b.currency, b.expr]).toEqual([figure, "currency_code", expect.not.stringContaining("arrived_currency")])
          continue
        }
        const same = sameCurrency.exec(b.expr ?? "")
        if (b.currency === "currency_code") {
          // counted on the pay-in's row only when it arrived in the currency asked; else on a row of its own
          expect([figure, same]).toEqual([figure, expect.anything()])
          const other = counted.find((o) => o.currency === "arrived_currency" && o.expr === same![1])
          expect([figure, other?.where]).toEqual([figure, expect.stringMatching(/^arrived_currency <> currency_code\b/)])
        } else {
          expect([figure, b.currency, same]).toEqual([figure, "arrived_currency", null])
        }
      }
    }
    // a flag figure without an amount of its own sums what arrived; a flag's amount is a part of what was asked
    for (const [figure, { amount }] of Object.entries(INSIGHT_FLAGS)) {
      expect([figure, INSIGHT_AMOUNT_CURRENCY[figure as keyof typeof INSIGHT_FLAGS]]).toEqual([figure, amount === null ? "arrived" : "asked"])
    }
  })
})

/** A select list split at its top-level commas (not those inside brackets or quotes). */
function splitTopLevel(list: string): string[] {
  const items: string[] = []
  let depth = 0
  let quoted = false
  let start = 0
  for (let i = 0; i < list.length; i++) {
    const c = list[i]
    if (c === "'") quoted = !quoted
    else if (!quoted && (c === "(" || c === "[")) depth++
    else if (!quoted && (c === ")" || c === "]")) depth--
    else if (!quoted && depth === 0 && c === ",") {
      items.push(list.slice(start, i).trim())
      start = i + 1
    }
  }
  items.push(list.slice(start).trim())
  return items
}
