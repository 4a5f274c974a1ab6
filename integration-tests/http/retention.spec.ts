// Retention (issue 15, part 3) on a real Medusa and PostgreSQL:
//   - the retention run deletes applied webhook-inbox entries applied more than
//     webhookRetentionDays ago and per-day rejected counters older than
//     webhookCounterRetentionDays, in batches of pruneBatchSize, and nothing else: not the
//     received, failed or rejected entries, not newer ones, never the ledger; the status history
//     only when historyRetentionDays is set, and only of pay-ins that ended before that window;
//   - the windows come from the plugin options and the admin (0 keeps forever; bad values 400);
//   - the scheduled entry runs once at a time across processes (a lock) and is recorded for the
//     admin's webhook health;
//   - the health's webhooks_backlog counts received entries past its threshold, of its instance only;
//   - on a filled inbox its statements, webhook health's counts and the health's inbox reads go
//     through indexes (EXPLAIN).
// No timing assertions.
import { LAST_APPLIED_SQL, WEBHOOK_BACKLOG_SQL } from "../../src/modules/payin/health/health"
import { prunePayinRecords, prunePayinRecordsScheduled, RETENTION_JOB } from "../../src/money-path/retention"
import { adminHeaders } from "../support/admin"
import { planNodesOn } from "../support/explain"
import { appSpec } from "../support/harness"
import { fillHistory, fillInbox } from "../support/inbox-fill"
import { fillLedger } from "../support/ledger-fill"

jest.setTimeout(180_000)

const PROVIDER = "pp_payin_default"
const DAY = 86_400_000
const daysAgo = (days: number) => new Date(Date.now() - days * DAY)

appSpec((h) => {
  const { api, getContainer, knex } = h
  let admin: { headers: Record<string, string> }
  const ids = async (sql: string, bindings: unknown[] = []) =>
    ((await knex().raw(sql, bindings)).rows as { id: string }[]).map((r) => r.id).sort()
  const count = async (table: string) => (await knex().raw(`select count(*)::int as n from ${table}`)).rows[0].n as number
  const counter = (providerId: string, day: Date, rejected: number) =>
    knex().raw(
      `insert into payin_webhook_counter (id, provider_id, day, rejected, last_rejected_at, last_rejection_reason)
       values (?, ?, date_trunc('day', ?::timestamptz at time zone 'UTC') at time zone 'UTC', ?, ?, 'signature_mismatch')`,
      [`payinwc_${providerId}_${day.getTime()}`, providerId, day.toISOString(), rejected, day.toISOString()]
    )

  beforeAll(async () => {
    admin = await adminHeaders(getContainer(), api)
  })

  // every test starts from the same rows (tests change them)
  beforeEach(async () => {
    // the inbox writes its per-day counts in batches (2 s): a previous test's must land before the
    // delete, or it writes today's counter again between the delete and the insert below
    await h.ledger.inbox.flush()
    for (const table of ["payin_webhook_event", "payin_webhook_counter", "payin_webhook_hash", "payin_status_change", "payin_transaction", "payin_job_run"]) {
      await knex().raw(`delete from ${table}`)
    }
    // the scheduled job stays out of these tests (its lock is held); the third test takes it over
    await knex().raw(
      `insert into locking (id, owner_id, expiration) values ('payin:retention', 'retention-spec', now() + interval '2 hours')
       on conflict (id) do update set owner_id = excluded.owner_id, expiration = excluded.expiration`
    )
    // a year-old ledger with its status history: never pruned, however old
    await fillLedger(knex(), { count: 30, tag: "r", newest: daysAgo(400), spacingSeconds: 3600 })
    await fillHistory(knex(), PROVIDER, 30)
    // applied 40 days ago (due), 10 days ago (kept); unapplied ones 40 days old (kept)
    await fillInbox(knex(), { count: 7, tag: "old", newest: daysAgo(40), spacingSeconds: 60 })
    await fillInbox(knex(), { count: 3, tag: "new", newest: daysAgo(10), spacingSeconds: 60 })
    await fillInbox(knex(), { count: 2, tag: "rec", newest: daysAgo(40), state: "received" })
    await fillInbox(knex(), { count: 2, tag: "fail", newest: daysAgo(40), state: "failed" })
    await fillInbox(knex(), { count: 2, tag: "rej", newest: daysAgo(40), state: "rejected" })
    // the inbox job stays out too: the unapplied entries are leased, as by a worker booking them (else
    // its 5 s tick books them as unknown pay-ins in the middle of a test, when the tick falls there)
    await knex().raw(`update payin_webhook_event set claimed_until = now() + interval '2 hours' where state in ('received', 'failed')`)
    // per-day counters of refused requests: 120 and 95 days old (due), 30 days and today (kept)
    await counter(PROVIDER, daysAgo(120), 5)
    await counter(PROVIDER, daysAgo(95), 4)
    await counter(PROVIDER, daysAgo(30), 3)
    await counter(PROVIDER, new Date(), 2)
    // the health's minute counters: 3 days old (due, a fixed 2-day window) and now (kept)
    for (const [id, minute] of [["payinhc_OLD", daysAgo(3)], ["payinhc_NEW", new Date()]] as const) {
      await knex()("payin_health_counter").insert({ id, provider_id: PROVIDER, minute, kind: "call:look_up:ok", count: 1, last_at: minute })
    }
    // webhook deliveries in the minute counters: 30 days old (past the health's hour: folded into
    // their day's row, not pruned) and now (kept as they are)
    const deliveries = [
      ["payinhc_W30A", daysAgo(30), "webhook:accepted", 4, null],
      ["payinhc_W30R", daysAgo(30), "webhook:refused:signature_mismatch", 2, "signature_mismatch"],
      ["payinhc_WNOW", new Date(), "webhook:refused:invalid_body", 1, "invalid_body"],
    ] as const
    for (const [id, minute, kind, n, detail] of deliveries) {
      await knex()("payin_health_counter").insert({ id, provider_id: PROVIDER, minute, kind, count: n, last_at: minute, detail })
    }
  })

  it("prunes applied entries and counters past their windows, in batches, and nothing else", async () => {
    const kept = await ids(`select id from payin_webhook_event where not (id like 'payinwh_01OLD%')`)
    const ledger = await ids("select id from payin_transaction")
    const history = await count("payin_status_change")
    expect(ledger).toHaveLength(30)
    expect(history).toBe(90)
    expect(kept).toHaveLength(9)

    const health = async () => (await api.get("/admin/payin/webhook-health", admin)).data.providers.find((p: any) => p.id === "default")
    // the day rows and the minute counts not folded yet: 14 + 2 + 1 refused, 4 accepted
    expect(await health()).toMatchObject({ rejected: 17, accepted: 4, failed: 2 })

    const report = await prunePayinRecords(getContainer(), { batchSize: 3 })
    expect(report).toMatchObject({
      inboxPruned: 7,
      countersPruned: 2,
      countersFolded: 2,
      healthCountersPruned: 1,
      // inbox: 3 + 3 + 1; counters: 2 (fewer than a batch ends each kind); kept hashes: none due
      batches: 5,
      more: false,
      webhookRetentionDays: 30,
      webhookCounterRetentionDays: 90,
    })
    expect(await ids("select id from payin_webhook_event")).toEqual(kept)
    expect(await ids("select id from payin_transaction")).toEqual(ledger)
    expect(await count("payin_status_change")).toBe(history)
    expect(await ids("select id from payin_health_counter")).toEqual(["payinhc_NEW", "payinhc_WNOW"])
    const days = (await knex().raw(`select accepted, rejected, last_rejection_reason from payin_webhook_counter order by day`)).rows
    // the 30-day-old minute counts are in their day's row now: 3 + 2 refused, 4 accepted
    expect(days).toEqual([
      { accepted: 4, rejected: 5, last_rejection_reason: "signature_mismatch" },
      { accepted: 0, rejected: 2, last_rejection_reason: "signature_mismatch" },
    ])
    // webhook health counts what is kept, each delivery once: 5 + 2 + 1 refused, 4 accepted
    expect(await health()).toMatchObject({ rejected: 8, accepted: 4, failed: 2 })

    // a second run finds nothing more
    expect(await prunePayinRecords(getContainer(), { batchSize: 3 })).toMatchObject({ inboxPruned: 0, countersPruned: 0, countersFolded: 0, batches: 3 })
  })

  it("prunes the status history of pay-ins ended more than historyRetentionDays ago, when set: never an open one's, never the ledger", async () => {
    const ledger = await ids("select id from payin_transaction")
    // still open, an effect pending, ended 5 days ago: their history stays
    const open = ledger.slice(0, 3)
    const pending = ledger.slice(3, 5)
    const recent = ledger.slice(5, 7)
    await knex().raw(`update payin_transaction set status = 'active', paid_at = null where id = any(?)`, [open])
    await knex().raw(`update payin_transaction set effect_pending = 'capture' where id = any(?)`, [pending])
    await knex().raw(`update payin_transaction set status_changed_at = now() - interval '5 days' where id = any(?)`, [recent])
    // a note written today about a pay-in that ended long ago: newer than the window, kept
    await knex().raw(`insert into payin_status_change (transaction_id, from_status, to_status, source, note) values (?, 'closed', 'closed', 'store', 'manual refund of 10.00 recorded')`, [ledger[10]])
    expect(await count("payin_status_change")).toBe(91)

    await api.post("/admin/payin/settings", { historyRetentionDays: 30 }, admin)
    expect((await api.get("/admin/payin/webhook-health", admin)).data.retention).toMatchObject({ history_retention_days: 30 })
    const report = await prunePayinRecords(getContainer(), { batchSize: 7 })
    expect(report).toMatchObject({ historyPruned: (30 - 7) * 3, historyRetentionDays: 30, more: false })
    const left = (await knex().raw(`select transaction_id, count(*)::int as n from payin_status_change group by 1 order by 1`)).rows
    expect(left).toEqual([...open, ...pending, ...recent, ledger[10]].sort().map((id) => ({ transaction_id: id, n: id === ledger[10] ? 1 : 3 })))
    expect(await ids("select id from payin_transaction")).toEqual(ledger)
    // the pay-in's detail still answers, with what history is left
    const detail = await api.get(`/admin/payin/transactions/${ledger[12]}`, admin)
    expect(detail.data.transaction.id).toBe(ledger[12])
    expect(detail.data.history).toEqual([])
    // a second run finds nothing more; 0 keeps everything
    expect(await prunePayinRecords(getContainer(), { batchSize: 7 })).toMatchObject({ historyPruned: 0 })
    await api.post("/admin/payin/settings", { historyRetentionDays: 0 }, admin)
    await knex().raw(`update payin_transaction set status = 'closed', effect_pending = null, status_changed_at = now() - interval '400 days'`)
    expect(await prunePayinRecords(getContainer(), { batchSize: 7 })).toMatchObject({ historyPruned: 0, historyRetentionDays: 0 })
    expect(await count("payin_status_change")).toBe(22)
  })

  it("a callback delivered again after its entry was pruned is still a duplicate: never stored or applied again", async () => {
    const tx = { id: "svc-pruned-1", status: "dispute", fiatAmount: "1790.00", fiatCurrency: "RUB", extra: {} } as any
    const first = await h.ledger.inbox.receive(PROVIDER, tx, JSON.stringify(tx))
    expect(first).toMatchObject({ inserted: true, state: "received" })
    await h.ledger.inbox.settle(first.id, { ok: true, result: null })
    await knex().raw(`update payin_webhook_event set applied_at = now() - interval '40 days' where id = ?`, [first.id])
    expect(await prunePayinRecords(getContainer())).toMatchObject({ inboxPruned: 8 })
    expect(await count("payin_webhook_hash")).toBe(8)
    // the same callback again (a service that re-sends old callbacks): acknowledged, nothing stored
    const again = await h.ledger.inbox.receive(PROVIDER, tx, JSON.stringify(tx))
    expect(again).toMatchObject({ inserted: false, state: "applied" })
    expect((await knex().raw(`select count(*)::int as n from payin_webhook_event where service_id = 'svc-pruned-1'`)).rows[0].n).toBe(0)
    // the kept hashes go with the counters' window
    await knex().raw(`update payin_webhook_hash set pruned_at = now() - interval '91 days'`)
    expect(await prunePayinRecords(getContainer())).toMatchObject({ hashesPruned: 8 })
  })

  it("takes its windows from the admin over medusa-config: shorter, 0 keeps forever, bad values are 400", async () => {
    const settings = async () => (await api.get("/admin/payin/settings", admin)).data.plugin
    expect((await settings()).values).toMatchObject({ webhookRetentionDays: 30, webhookCounterRetentionDays: 90, pruneBatchSize: 1000 })

    const bad = await api.post("/admin/payin/settings", { webhookRetentionDays: -1, pruneBatchSize: 5 }, { ...admin, validateStatus: () => true })
    expect(bad.status).toBe(400)
    expect(JSON.stringify(bad.data)).toContain("webhookRetentionDays must be 0 (keep forever) or more")

    // 0: nothing of that kind is pruned
    await api.post("/admin/payin/settings", { webhookRetentionDays: 0, webhookCounterRetentionDays: 0 }, admin)
    const plugin = await settings()
    expect(plugin.values).toMatchObject({ webhookRetentionDays: 0, webhookCounterRetentionDays: 0 })
    expect(plugin.sources).toMatchObject({ webhookRetentionDays: "admin", webhookCounterRetentionDays: "admin", pruneBatchSize: "default" })
    const before = await count("payin_webhook_event")
    expect(await prunePayinRecords(getContainer())).toMatchObject({ inboxPruned: 0, countersPruned: 0, batches: 0 })
    expect(await count("payin_webhook_event")).toBe(before)

    // 5 days: the entries applied 10 days ago go too, the unapplied ones stay
    await api.post("/admin/payin/settings", { webhookRetentionDays: 5, webhookCounterRetentionDays: null }, admin)
    expect(await prunePayinRecords(getContainer())).toMatchObject({ inboxPruned: 10, countersPruned: 2, webhookRetentionDays: 5 })
    const states = (await knex().raw(`select state, count(*)::int as n from payin_webhook_event group by state order by state`)).rows
    expect(states).toEqual([
      { state: "failed", n: 2 },
      { state: "received", n: 2 },
      { state: "rejected", n: 2 },
    ])
    await api.post("/admin/payin/settings", { webhookRetentionDays: null }, admin)
  })

  it("runs once at a time across processes (a lock) and is recorded in the webhook health", async () => {
    // the scheduled entry takes the lock: another process (the lock row is shared) skips
    await knex().raw(`delete from locking where id = 'payin:retention'`)
    const first = await prunePayinRecordsScheduled(getContainer())
    expect(first).toMatchObject({ inboxPruned: 7, countersPruned: 2 })
    expect(await prunePayinRecordsScheduled(getContainer())).toBeNull()
    expect((await h.ledger.lastJobRun(RETENTION_JOB))?.runs).toBe(1)

    const health = (await api.get("/admin/payin/webhook-health", admin)).data
    expect(health.retention).toMatchObject({
      webhook_retention_days: 30,
      webhook_counter_retention_days: 90,
      runs: 1,
      last_report: { inboxPruned: 7, countersPruned: 2, more: false },
    })
    expect(Date.parse(health.retention.last_run_at)).not.toBeNaN()
  })

  it("webhooks_backlog counts an instance's received entries stored past its threshold only (GET /admin/payin/health)", async () => {
    const backlog = async () =>
      (await api.get("/admin/payin/health", admin)).data.signals.find((s: any) => s.id === "webhooks_backlog" && s.provider_id === PROVIDER)
    // beside the two received 40 days ago: one received just now (within the threshold), and two
    // received long ago for another instance; the failed, rejected and applied ones are not waiting
    await fillInbox(knex(), { count: 1, tag: "fresh", state: "received" })
    await fillInbox(knex(), { count: 2, tag: "other", newest: daysAgo(50), state: "received", providerId: "pp_payin_other" })
    const oldest = (await knex().raw(`select min(created_at) as at from payin_webhook_event where id like 'payinwh_01REC%'`)).rows[0].at as Date
    const failing = await backlog()
    expect(failing).toMatchObject({ state: "failing", group: "webhooks", alerts: true, figure: { count: 2, oldest_at: oldest.toISOString(), threshold_seconds: 120 } })
    expect(failing.figure.waiting_seconds).toBeGreaterThanOrEqual(40 * 86_400)
    expect(failing.action).toContain("MEDUSA_WORKER_MODE")
    // booked: nothing waits any more
    await knex().raw(`update payin_webhook_event set state = 'applied', applied_at = now() where id like 'payinwh_01REC%'`)
    expect(await backlog()).toMatchObject({ state: "ok", figure: { count: 0, oldest_at: null } })
  })

  it("reads the inbox through indexes: the prune selection and webhook health (EXPLAIN)", async () => {
    // an inbox of 35,000 entries, 20,000 of them past the window, with statistics
    await fillInbox(knex(), { count: 20_000, tag: "bulk", newest: daysAgo(35), spacingSeconds: 20 })
    await fillInbox(knex(), { count: 10_000, tag: "bulko", newest: new Date(), spacingSeconds: 20 })
    // a burst stored just now, being booked: received, none of them waiting past the threshold
    await fillInbox(knex(), { count: 5_000, tag: "burst", state: "received", spacingSeconds: 0 })
    await knex().raw("vacuum analyze payin_webhook_event")
    await knex().raw("vacuum analyze payin_webhook_counter")

    const statements: { sql: string; bindings: unknown[] }[] = []
    const listener = (q: { sql: string; bindings?: unknown[] }) => {
      if (/payin_webhook_(event|counter)/.test(q.sql) && /^\s*(select|with|delete)\b/i.test(q.sql)) {
        statements.push({ sql: q.sql, bindings: q.bindings ?? [] })
      }
    }
    knex().on("query", listener)
    try {
      await h.ledger.inbox.deliveries(PROVIDER)
      await h.ledger.inbox.pruneApplied(30, 100)
      await h.ledger.inbox.pruneCounters(90, 100)
    } finally {
      knex().removeListener("query", listener)
    }
    expect(statements.length).toBeGreaterThanOrEqual(5)
    const plans = await planNodesOn(knex(), statements, "payin_webhook_event")
    for (const plan of plans) expect(plan).toEqual({ sql: plan.sql, types: expect.not.arrayContaining(["Seq Scan"]) })
    // webhook health reads the inbox only for what fails now and the newest error (partial indexes);
    // its counts come from the daily counters
    const health = plans.filter((p) => /state = 'failed'|last_error is not null/.test(p.sql))
    expect(health).toHaveLength(2)
    for (const plan of health) expect(plan.types.some((t) => /Index/.test(t))).toBe(true)
    expect(statements.some((s) => /sum\(accepted\)[\s\S]*from payin_webhook_counter/.test(s.sql))).toBe(true)
    // the prune selection walks the partial index of applied entries by age
    expect(plans.find((p) => p.sql.includes("with doomed"))!.types).toContain("Index Scan")
    // the health's last applied webhook of an instance with none in this inbox: one step down its
    // own index, not the whole inbox's applied entries read to their end
    const { rows } = await knex().raw(`explain (format json) ${LAST_APPLIED_SQL.replace("?", "'pp_payin_quiet'")}`)
    const plan = JSON.stringify(rows[0]["QUERY PLAN"])
    expect(plan).toContain('"Index Name":"IDX_payin_webhook_event_provider_id_applied_at"')
    expect(plan).not.toContain("Seq Scan")
    // the health's webhooks_backlog: the partial index of received entries by age, not every
    // received one (the burst) nor the applied ones
    const backlog = await knex().raw(`explain (format json) ${WEBHOOK_BACKLOG_SQL}`, [new Date(Date.now() - 120_000), PROVIDER])
    const backlogPlan = JSON.stringify(backlog.rows[0]["QUERY PLAN"])
    expect(backlogPlan).toContain('"Index Name":"IDX_payin_webhook_event_created_at"')
    expect(backlogPlan).not.toContain("Seq Scan")
  })
})
