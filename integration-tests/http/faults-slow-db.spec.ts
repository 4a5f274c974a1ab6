// The store's database is slow, not gone: a webhook's ledger write waits on a lock another
// session holds. Shows: the webhook is stored and answered 200 at once (its booking waits, not the
// answer), the verified delivery stays stored in the inbox, and the ledger is never half-written (status,
// history row and pending effect commit together or not at all): neither while the write waits,
// nor when the waiting statement is cancelled half-way through its transaction (what a
// statement_timeout does). Once the lock is gone the delivery is applied exactly once: one
// history row, one Medusa payment captured once, the order captured.
import path from "path"
import pg from "pg"
import type { Transaction } from "../../src/client/schemas"
import { WEBHOOK_ANSWER_DEADLINE_MS } from "../../src/money-path/inbox"
import type { RunningSandbox } from "../../src/sandbox"
import { adminHeaders } from "../support/admin"
import { capturedExactlyOnce, deliverTimed, paymentsOfSessions } from "../support/faults"
import { appSpec } from "../support/harness"
import { eventually } from "../support/medusa-process"
import { control, sandboxForApp } from "../support/sandbox"
import { Storefront, placedOrderAwaitingPayment } from "../support/storefront"

jest.setTimeout(300_000)

const KEY = "faults-slow-db-key-0123456789"
/** An answer slower than this is a hang (the route stores and answers; it never waits for the booking). */
const HANG_MS = 30_000
let sandbox: RunningSandbox
// no callbacks from the service: the test delivers them itself, when it wants
sandboxForApp(KEY, { webhookUrl: null }, (s) => (sandbox = s))

appSpec((h, { dbConfig }) => {
  const { api, getContainer } = h
  // Connected inside the test: the runner recreates the database before each test, ending
  // every session it finds.
  let db: pg.Client
  /** A second session on the same database: the one that holds the locks. */
  let blocker: pg.Client
  const connect = async () => {
    const client = new pg.Client({ connectionString: dbConfig.clientUrl })
    client.on("error", () => undefined) // the runner's teardown ends it
    await client.connect()
    return client
  }
  afterAll(async () => {
    await Promise.all([db?.end().catch(() => undefined), blocker?.end().catch(() => undefined)])
  })
  // a failed step must not leave a booking waiting on the blocker's locks (the harness waits for bookings after each test)
  afterEach(() => blocker?.query("rollback").catch(() => undefined))

  /** The ledger row, its history to `closed`, and its inbox entries, as committed. */
  const ledgerState = async (ledgerId: string) => {
    const { rows } = await db.query(
      `select t.status, t.effect_pending, t.captured_at is not null as captured,
         (select count(*)::int from payin_status_change h where h.transaction_id = t.id and h.to_status = 'closed') as closed_rows,
         (select json_agg(json_build_object('state', e.state, 'error', e.last_error is not null))
            from payin_webhook_event e where e.service_id = t.service_id and e.status = 'closed') as inbox
       from payin_transaction t where t.id = $1`,
      [ledgerId]
    )
    return rows[0]
  }

  it("a ledger write stuck on a lock: answered at once, nothing half-written, booked exactly once after", async () => {
    db = await connect()
    blocker = await connect()
    const container = getContainer()
    const seed = await h.seedStore(["pp_payin_default"])
    const shop = new Storefront(api, seed)
    const admin = await adminHeaders(container, api)
    const placed = [await placedOrderAwaitingPayment(shop, sandbox, h.ledger), await placedOrderAwaitingPayment(shop, sandbox, h.ledger)]
    const rows = await Promise.all(placed.map(async (p) => (await h.ledger.rows({ session_id: p.session.id }))[0]))
    for (const p of placed) await control(sandbox, "POST", `/_sandbox/transactions/${p.payin.id}/pay`)
    const callback = (i: number) => JSON.stringify(sandbox.transaction(placed[i].payin.id) as Transaction)
    const untouched = { status: "active", effect_pending: null, captured: false, closed_rows: 0 }
    const answers: Record<string, unknown> = {}

    // 1. Another session holds the pay-in's row (select … for update): the write waits at its first statement.
    await blocker.query("begin")
    await blocker.query("select id from payin_transaction where id = $1 for update", [rows[0].id])
    const rowLocked = await deliverTimed(api.defaults.baseURL, callback(0), KEY, HANG_MS)
    answers.rowLocked = rowLocked
    // stored and answered at once: the booking waits on the worker (here this shared process), not the answer
    expect(rowLocked.status).toBe(200)
    expect(rowLocked.ms).toBeLessThan(HANG_MS)
    await eventually("the booking waits on the row lock", async () => {
      // asked on the other session: inside the blocker's transaction pg_stat_activity is a snapshot
      const { rows: waiting } = await db.query("select pid from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%payin_transaction%'")
      return waiting.length > 0
    })
    // stored, not applied, nothing written
    expect(await ledgerState(rows[0].id)).toEqual({ ...untouched, inbox: [{ state: "received", error: false }] })
    expect((await paymentsOfSessions(dbConfig.clientUrl, [placed[0].session.id]))[0].payments).toEqual([])
    // the lock goes: the write that waited goes on by itself; the service's retry finds it done
    await blocker.query("rollback")
    await eventually("the waiting write applied once the lock is gone", async () => (await ledgerState(rows[0].id)).effect_pending === null && (await ledgerState(rows[0].id)).captured)
    const retry0 = await deliverTimed(api.defaults.baseURL, callback(0), KEY, HANG_MS)
    answers.rowRetry = retry0
    expect(retry0.status).toBe(200)

    // 2. Another session locks the history table: the write has updated the row (uncommitted)
    //    and waits to insert the history row, half-way through its transaction.
    await blocker.query("begin")
    await blocker.query("lock table payin_status_change in share mode")
    const halfWay = await deliverTimed(api.defaults.baseURL, callback(1), KEY, HANG_MS)
    answers.historyLocked = halfWay
    expect(halfWay.status).toBe(200)
    expect(halfWay.ms).toBeLessThan(HANG_MS)
    // the waiting statement is cancelled, as statement_timeout would: its transaction rolls back
    const waiting = await eventually("the booking waits half-way, on the history table", async () => {
      // by the lock it waits for (the statement's text may be longer than pg_stat_activity keeps)
      const { rows: found } = await db.query(
        "select distinct pid from pg_locks where not granted and relation = 'payin_status_change'::regclass"
      )
      return found.length ? found : null
    })
    expect(await ledgerState(rows[1].id)).toEqual({ ...untouched, inbox: [{ state: "received", error: false }] })
    expect(waiting!).toHaveLength(1)
    await blocker.query("select pg_cancel_backend($1)", [waiting![0].pid])
    // the delivery stays stored, marked failed (to be retried); still nothing written
    await eventually("the cancelled apply settled as failed", async () => (await ledgerState(rows[1].id)).inbox?.[0]?.state === "failed")
    expect(await ledgerState(rows[1].id)).toEqual({ ...untouched, inbox: [{ state: "failed", error: true }] })
    expect((await paymentsOfSessions(dbConfig.clientUrl, [placed[1].session.id]))[0].payments).toEqual([])
    await blocker.query("rollback")
    // the service's retry (a merchant's resend) makes the failed entry due at once: booked, once
    const retry1 = await deliverTimed(api.defaults.baseURL, callback(1), KEY, HANG_MS)
    answers.historyRetry = retry1
    expect(retry1.status).toBe(200)
    await eventually("the resent callback booked", async () => (await ledgerState(rows[1].id)).captured)
    console.log(`[faults-slow-db] answers (deadline ${WEBHOOK_ANSWER_DEADLINE_MS} ms): ${JSON.stringify(answers)}`)

    // Exactly once, in the ledger and in Medusa.
    for (const [i, p] of placed.entries()) {
      expect(await ledgerState(rows[i].id)).toEqual({ status: "closed", effect_pending: null, captured: true, closed_rows: 1, inbox: [{ state: "applied", error: false }] })
      const order = (await api.get(`/admin/orders/${p.orderId}?fields=id,payment_status`, admin)).data.order
      expect(order.payment_status).toBe("captured")
    }
    const ids = placed.map((p) => p.session.id as string)
    expect(capturedExactlyOnce(await paymentsOfSessions(dbConfig.clientUrl, ids), ids)).toBe(true)
  })
})
