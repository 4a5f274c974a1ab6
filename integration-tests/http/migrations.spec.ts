// The plugin's migrations on a populated ledger: every migration after the first (which creates
// the tables) goes down and up again, in one transaction that is rolled back, over rows of every
// kind the plugin writes (pay-ins, their history, inbox entries in every state, counters, job
// runs, notifications). A down that fails on real data (one did, on a `rejected` inbox entry)
// leaves a store unable to roll back a release.
import { appSpec } from "../support/harness"
import { pluginMigrations, runMigration } from "../support/migrations"

jest.setTimeout(120_000)

const migrations = pluginMigrations()

appSpec((h) => {
  it("every migration after the first goes down and up again on a populated ledger", async () => {
    expect(migrations.length).toBeGreaterThan(5)
    const knex = h.knex()
    const rowsOf = async (trx: any, table: string) => Number((await trx.raw(`select count(*) as n from ${table}`)).rows[0].n)
    const error = await knex
      .transaction(async (trx: any) => {
        await trx.raw(`insert into payin_transaction (id, provider_id, session_id, service_id, status, amount, raw_amount, currency_code, fiat_amount, fiat_currency, flags, paid_at, status_changed_at)
          values ('payintx_m1', 'pp_payin_default', 'payses_m1', 'svc-m1', 'closed', 1790, '{"value":"1790","precision":20}', 'rub', '895.00', 'RUB', '{"underpayment":{"at":"2026-11-25T00:00:00Z"}}', now(), now()),
                 ('payintx_m2', 'pp_payin_default', 'payses_m2', 'svc-m2', 'active', 1790, '{"value":"1790","precision":20}', 'rub', '1790.00', 'RUB', null, null, now()),
                 ('payintx_m3', 'pp_payin_default', 'payses_m3', 'svc-m3', 'closed', 1790, '{"value":"1790","precision":20}', 'rub', '19.90', 'USD', null, now(), now())`)
        // m1 was asked 1,790.00 at creation, recalculated to 895.00 before it closed
        await trx.raw(`insert into payin_status_change (transaction_id, from_status, to_status, source, service_data, created_at)
          values ('payintx_m1', null, 'active', 'create', '{"fiatAmount":"1790.00"}', now() - interval '20 minutes'),
                 ('payintx_m1', 'active', 'closed', 'webhook', '{"fiatAmount":"895.00"}', now())`)
        for (const state of ["received", "applied", "failed", "rejected"]) {
          await trx.raw(
            `insert into payin_webhook_event (id, provider_id, service_id, status, payload_hash, raw_body, state, applied_at)
             values (?, 'pp_payin_default', 'svc-m1', 'closed', ?, '{}', ?, case when ? = 'applied' then now() else null end)`,
            [`payinwh_${state}`, `hash-${state}`, state, state]
          )
        }
        const before = { transactions: await rowsOf(trx, "payin_transaction"), history: await rowsOf(trx, "payin_status_change") }

        for (const m of [...migrations.slice(1)].reverse()) await runMigration(trx, m, "down")
        for (const m of migrations.slice(1)) await runMigration(trx, m, "up")
        // the data is still there, and the constraints of today hold
        expect({ transactions: await rowsOf(trx, "payin_transaction"), history: await rowsOf(trx, "payin_status_change") }).toEqual(before)
        expect(Number((await trx.raw(`select count(*) as n from payin_webhook_event`)).rows[0].n)).toBe(4)
        // the backfill: paid when it closed, the amount first assigned (before the recalculation), else the current one
        const rows = (await trx.raw(`select id, assigned_amount, paid_at = status_changed_at as paid_when_closed, paid_at from payin_transaction order by id`)).rows
        expect(rows).toEqual([
          expect.objectContaining({ id: "payintx_m1", assigned_amount: "1790.00", paid_when_closed: true }),
          expect.objectContaining({ id: "payintx_m2", assigned_amount: "1790.00", paid_at: null }),
          expect.objectContaining({ id: "payintx_m3", paid_when_closed: true }),
        ])
        // the rollups recomputed by the last rule: money in the currency it arrived in
        const money = (await trx.raw(`select currency_code, sum(paid_amount)::text as paid, sum(received_amount)::text as received, sum(created)::int as created
          from payin_rollup_day group by currency_code order by currency_code`)).rows
        expect(money).toEqual([
          { currency_code: "rub", paid: "895.00", received: "895.00", created: 3 },
          { currency_code: "usd", paid: "19.90", received: "19.90", created: 0 },
        ])
        throw new Error("rollback")
      })
      .catch((e: Error) => e)
    expect(error.message).toBe("rollback")
  })
})
