// `npm run bench:migrations` (part of `npm run bench`): how long the plugin's migrations take on a
// store with BENCH_MIGRATION_ROWS pay-ins (default 1,000,000, the mix of ledger-fill.ts) and their
// status history (3 changes per pay-in): every migration after the first (which creates empty
// tables) is taken down, then each is run up again in its own transaction, as Medusa's migrator
// runs it, and timed. The backfill of Migration20261123171429 is also timed as first written (two
// UPDATEs, a history lookup per row that no index served: its time grows with pay-ins × history),
// rolled back, as the baseline its rewrite is compared with, when there are at most
// BENCH_MIGRATION_BASELINE_ROWS pay-ins (default 20,000: it took 806 s there). Prints and
// records; asserts only that both backfills computed the same values.
import os from "os"
import path from "path"
import { performance } from "perf_hooks"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { fillLedger } from "../support/ledger-fill"
import { fillHistory } from "../support/inbox-fill"
import { pluginMigrations, queriesOf, runMigration } from "../support/migrations"
import { recordLines } from "./record"
import { benchSetting } from "./smoke"

jest.setTimeout(7_200_000)

const ROWS = benchSetting("BENCH_MIGRATION_ROWS", 1_000_000, 300)
const BASELINE_ROWS = benchSetting("BENCH_MIGRATION_BASELINE_ROWS", 20_000, 20_000)
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
