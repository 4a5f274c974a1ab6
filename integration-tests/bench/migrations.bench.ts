// `npm run bench:migrations` (part of `npm run bench`): how long the plugin's migrations take on a
// store with BENCH_MIGRATION_ROWS pay-ins (default 1,000,000, the mix of ledger-fill.ts) and their
// status history (3 changes per pay-in): every migration after the first (which creates empty
// tables) is taken down, then each is run up again in its own transaction, as Medusa's migrator
// runs it, and timed. The backfill of Migration20261123171429 is also timed as first written (two
// UPDATEs, a history lookup per row that no index served: its time grows with pay-ins × history),
// rolled back, as the baseline its rewrite is compared with, when there are at most
// BENCH_MIGRATION_BASELINE_ROWS pay-ins (default 20,000: it took 806 s there). Then the insights'
// triggers: one INSERT … SELECT of BENCH_ROLLUP_BULK_ROWS pay-ins of one day, bank and method
// (default 1,000,000: an import, a backfill), rolled back, with the statement-level triggers and
// without any; the row-level trigger they replaced on BENCH_ROLLUP_BASELINE_ROWS of them (default
// 20,000: it updates the one rollup row once per pay-in, its time grows with the square); and
// BENCH_ROLLUP_HOT_UPDATES single-row updates, each its own transaction (a webhook's), under each
// of the three. Prints and records; asserts only that both backfills computed the same values and
// that the bulk insert was counted.
import os from "os"
import path from "path"
import { performance } from "perf_hooks"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { fillLedger } from "../support/ledger-fill"
import { duration } from "../../src/scripts/rebuild-insights"
import { fillHistory } from "../support/inbox-fill"
import { pluginMigrations, queriesOf, runMigration } from "../support/migrations"
import { recordLines } from "./record"
import { benchSetting } from "./smoke"

jest.setTimeout(7_200_000)

const ROWS = benchSetting("BENCH_MIGRATION_ROWS", 1_000_000, 300)
const BASELINE_ROWS = benchSetting("BENCH_MIGRATION_BASELINE_ROWS", 20_000, 20_000)
const BULK_ROWS = benchSetting("BENCH_ROLLUP_BULK_ROWS", 1_000_000, 300)
const ROW_TRIGGER_ROWS = benchSetting("BENCH_ROLLUP_BASELINE_ROWS", 20_000, 100)
const HOT_UPDATES = benchSetting("BENCH_ROLLUP_HOT_UPDATES", 2_000, 50)
const PROVIDER = "pp_payin_bench"
const BACKFILLED = "Migration20261123171429"
/** Migration20261123171429's backfill as first written: two whole-ledger UPDATEs, the second with a history lookup per row. */
const FIRST_BACKFILL = [
  `update "payin_transaction" set "paid_at" = coalesce("status_changed_at", "updated_at") where "status" = 'closed' and "paid_at" is null;`,
  `update "payin_transaction" t set "assigned_amount" = coalesce((select h."service_data"->>'fiatAmount' from "payin_status_change" h where h."transaction_id" = t."id" and h."service_data" ? 'fiatAmount' order by h."created_at", h."id" limit 1), t."fiat_amount") where t."assigned_amount" is null and t."fiat_amount" is not null;`,
]
const isBackfill = (sql: string) => /^update "payin_transaction"/i.test(sql.trim())
const seconds = (from: number) => (performance.now() - from) / 1000

medusaIntegrationTestRunner({
  inApp: true,
  cwd: path.join(__dirname, "..", "app"),
  testSuite: ({ getContainer }) => {
    it(`times every migration over ${ROWS.toLocaleString("en")} pay-ins and their history`, async () => {
      const knex = getContainer().resolve(ContainerRegistrationKeys.PG_CONNECTION) as any
      const lines: string[] = []
      const log = (line: string) => {
        lines.push(line)
        console.log(line)
      }
      // the scheduled jobs stay out of the measurements (their locks are held)
      for (const job of ["payin:reconcile", "payin:retention", "payin:notification-retry"]) {
        await knex.raw(
          `insert into locking (id, owner_id, expiration) values (?, 'bench-migrations', now() + interval '3 hours')
           on conflict (id) do update set owner_id = excluded.owner_id, expiration = excluded.expiration`,
          [job]
        )
      }

      // fill with the indexes dropped, then built again from their own definitions
      let started = performance.now()
      const indexes = (
        await knex.raw(`select indexname, indexdef from pg_indexes where tablename in ('payin_transaction', 'payin_status_change') and indexname not like '%_pkey'`)
      ).rows as { indexname: string; indexdef: string }[]
      for (const index of indexes) await knex.raw(`drop index "${index.indexname}"`)
      await fillLedger(knex, { count: ROWS, tag: "m", providerId: PROVIDER, rareFlags: true }, (done) => {
        if (done % 200_000 === 0 || done === ROWS) console.log(`migrations bench: ${done.toLocaleString("en")} pay-ins`)
      })
      await fillHistory(knex, PROVIDER, ROWS)
      for (const index of indexes) await knex.raw(index.indexdef)
      await knex.raw("vacuum analyze payin_transaction")
      await knex.raw("vacuum analyze payin_status_change")
      const history = Number((await knex.raw(`select count(*) as n from payin_status_change`)).rows[0].n)
      log(`filled ${ROWS.toLocaleString("en")} pay-ins and ${history.toLocaleString("en")} status changes in ${seconds(started).toFixed(0)} s`)

      const migrations = pluginMigrations().slice(1)
      for (const m of [...migrations].reverse()) await runMigration(knex, m, "down")
      await knex.raw("vacuum analyze payin_transaction")

      const times: string[] = []
      for (const m of migrations) {
        if (m.name === BACKFILLED && ROWS <= BASELINE_ROWS) {
          // the baseline: the same migration with the backfill as first written, rolled back
          const queries = (await queriesOf(m, "up")).filter((sql) => !isBackfill(sql)).concat(FIRST_BACKFILL)
          started = performance.now()
          const firstValues = await knex
            .transaction(async (trx: any) => {
              for (const sql of queries) await trx.raw(sql)
              const values = await backfilled(trx)
              throw Object.assign(new Error("rollback"), { values, took: seconds(started) })
            })
            .catch((e: Error & { values?: string; took?: number }) => {
              if (e.message !== "rollback") throw e
              return e
            })
          await knex.raw("vacuum payin_transaction")
          started = performance.now()
          let values = ""
          await knex.transaction(async (trx: any) => {
            await runMigration(trx, m, "up")
            values = await backfilled(trx)
          })
          const took = seconds(started)
          expect(values).toBe(firstValues.values)
          log(
            `${m.name} (adds paid_at and assigned_amount, backfilled over every pay-in): ${took.toFixed(1)} s; ` +
              `as first written ${firstValues.took!.toFixed(1)} s (${(firstValues.took! / took).toFixed(1)}x as long); the same values (checksum)`
          )
          times.push(`${m.name} ${took.toFixed(1)} s`)
          continue
        }
        started = performance.now()
        await knex.transaction((trx: any) => runMigration(trx, m, "up"))
        times.push(`${m.name} ${seconds(started).toFixed(1)} s`)
      }
      log(`each migration up, in its own transaction: ${times.join(", ")}`)
      await rollupTriggers(knex, log)
      log(`(load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(", ")} on ${os.cpus().length} cores)`)
      recordLines(["", `migrations over ${ROWS.toLocaleString("en")} pay-ins`, ...lines])
    })
  },
})

/** A checksum of what the backfill wrote, to compare the two versions. */
async function backfilled(trx: any): Promise<string> {
  const { rows } = await trx.raw(
    `select count(*) filter (where paid_at is not null) as paid, md5(string_agg(coalesce(paid_at::text, '-') || ':' || coalesce(assigned_amount, '-'), ',' order by id)) as sum
     from payin_transaction`
  )
  return `${rows[0].paid} paid, ${rows[0].sum}`
}

const ROW_TRIGGER = "Migration20261127100000"
const STATEMENT_TRIGGERS = ["payin_rollup_insert", "payin_rollup_update", "payin_rollup_delete"]

/** The row-level trigger of Migration20261127100000 (its rule and trigger function, as it wrote them), created disabled. */
async function rowTriggerSql(): Promise<string[]> {
  const m = pluginMigrations().find((p) => p.name === ROW_TRIGGER)!
  const wanted = /^create or replace function (payin_rollup_apply|payin_rollup_trigger)\(|^create trigger/
  const sql = (await queriesOf(m, "up")).filter((q) => wanted.test(q.trim()))
  return [...sql, `alter table payin_transaction disable trigger "payin_rollup_insert_delete"`, `alter table payin_transaction disable trigger "payin_rollup"`]
}

/**
 * The insights' triggers under a bulk insert (rolled back) and under single-row updates: the
 * statement-level ones, the row-level one they replaced, none. The rollups count every row here (a
 * pending rebuild would leave rows past its position to itself).
 */
async function rollupTriggers(knex: any, log: (line: string) => void) {
  await knex.raw("update payin_rollup_rebuild set finished_at = coalesce(finished_at, now())")
  const provider = "pp_payin_bulk"
  await knex.raw("drop table if exists payin_bench_bulk")
  await knex.raw("create unlogged table payin_bench_bulk (like payin_transaction including defaults)")
  const newest = new Date(`${new Date().toISOString().slice(0, 10)}T06:00:00Z`)
  await fillLedger(knex, { count: BULK_ROWS, tag: "k", providerId: provider, spacingSeconds: 0, newest, bank: "VTB", method: "card", into: "payin_bench_bulk" })
  await knex.raw("vacuum analyze payin_bench_bulk")
  const rowTrigger = await rowTriggerSql()
  const triggers = (names: string[], on: boolean) => names.map((t) => `alter table payin_transaction ${on ? "enable" : "disable"} trigger "${t}"`)
  /** One INSERT … SELECT of `rows` staged pay-ins under `setup`, rolled back: seconds, and the pay-ins the rollups counted. */
  const bulk = async (rows: number, setup: string[]) => {
    let result = { seconds: 0, counted: 0 }
    await knex
      .transaction(async (trx: any) => {
        for (const sql of setup) await trx.raw(sql)
        const started = performance.now()
        await trx.raw(`insert into payin_transaction select * from payin_bench_bulk limit ${rows}`)
        const took = seconds(started)
        const counted = Number((await trx.raw(`select coalesce(sum(created), 0) as n from payin_rollup_day where provider_id = ?`, [provider])).rows[0].n)
        result = { seconds: took, counted }
        throw new Error("rollback")
      })
      .catch((e: Error) => {
        if (e.message !== "rollback") throw e
      })
    await knex.raw("vacuum payin_transaction")
    return result
  }
  const statement = await bulk(BULK_ROWS, [])
  expect(statement.counted).toBe(BULK_ROWS)
  const none = await bulk(BULK_ROWS, triggers(STATEMENT_TRIGGERS, false))
  const statementSmall = await bulk(ROW_TRIGGER_ROWS, [])
  const row = await bulk(ROW_TRIGGER_ROWS, [...triggers(STATEMENT_TRIGGERS, false), ...rowTrigger, ...triggers(["payin_rollup_insert_delete"], true)])
  expect(row.counted).toBe(ROW_TRIGGER_ROWS)
  const n = (v: number) => v.toLocaleString("en")
  log(
    `insights triggers, one INSERT … SELECT of ${n(BULK_ROWS)} pay-ins of one day, bank and method (rolled back): ${statement.seconds.toFixed(1)} s ` +
      `with the statement-level triggers, ${none.seconds.toFixed(1)} s without any (the triggers: ${(statement.seconds - none.seconds).toFixed(1)} s)`
  )
  log(
    `  the row-level trigger they replaced, on ${n(ROW_TRIGGER_ROWS)} of them: ${row.seconds.toFixed(1)} s; ` +
      `the statement-level ones on the same ${n(ROW_TRIGGER_ROWS)}: ${statementSmall.seconds.toFixed(2)} s ` +
      `(the row-level one grows with the square of the rows of one rollup row: ${n(BULK_ROWS)} would take about ` +
      `${duration(row.seconds * 1000 * (BULK_ROWS / ROW_TRIGGER_ROWS) ** 2)})`
  )
  await knex.raw("drop table payin_bench_bulk")

  // single-row updates, each its own transaction, on open pay-ins of the filled ledger
  const ids = (await knex.raw(`select id from payin_transaction where status = 'active' order by id limit ?`, [HOT_UPDATES])).rows.map((r: any) => r.id)
  for (const sql of rowTrigger) await knex.raw(sql)
  const ROW_TRIGGERS = ["payin_rollup_insert_delete", "payin_rollup"]
  const modes: [string, string[]][] = [
    ["statement-level", [...triggers(STATEMENT_TRIGGERS, true), ...triggers(ROW_TRIGGERS, false)]],
    ["row-level (before)", [...triggers(STATEMENT_TRIGGERS, false), ...triggers(ROW_TRIGGERS, true)]],
    ["none", [...triggers(STATEMENT_TRIGGERS, false), ...triggers(ROW_TRIGGERS, false)]],
  ]
  const updates: [string, string][] = [
    ["a status change (counted)", "update payin_transaction set status = case when status = 'active' then 'dispute' else 'active' end, updated_at = now() where id = ?"],
    ["an effect's fence (nothing counted)", "update payin_transaction set effect_fence = effect_fence + 1 where id = ?"],
  ]
  const micros: Record<string, number[]> = {}
  // one connection, as a webhook's transaction gets a pooled one whose plans are warm: the first
  // updates after a trigger is switched (which drops the session's plans) are not timed
  const connection = await knex.client.acquireConnection()
  const run = (sql: string, id: string): Promise<unknown> => connection.query(sql.replace("?", "$1"), [id])
  try {
    for (let round = 0; round < 3; round++) {
      for (const [mode, setup] of modes) {
        for (const sql of setup) await knex.raw(sql)
        for (const [what, sql] of updates) {
          for (const id of ids.slice(0, 20)) await run(sql, id)
          const started = performance.now()
          for (const id of ids) await run(sql, id)
          ;(micros[`${mode}|${what}`] ??= []).push(((performance.now() - started) * 1000) / ids.length)
        }
      }
    }
  } finally {
    await knex.client.releaseConnection(connection)
  }
  for (const sql of triggers(STATEMENT_TRIGGERS, true)) await knex.raw(sql)
  await knex.raw(`drop trigger "payin_rollup_insert_delete" on payin_transaction`)
  await knex.raw(`drop trigger "payin_rollup" on payin_transaction`)
  await knex.raw("drop function payin_rollup_trigger()")
  await knex.raw("drop function payin_rollup_apply(payin_transaction, integer)")
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]
  for (const [what] of updates) {
    log(
      `  ${n(ids.length)} single-row updates, each its own transaction, ${what}: ` +
        modes.map(([mode]) => `${mode} ${median(micros[`${mode}|${what}`]).toFixed(0)} µs`).join(", ") +
        " each (one connection, round trip included, median of 3 rounds)"
    )
  }
}
