// The store's own PostgreSQL goes away and comes back, under one `medusa start` process (shared
// mode: routes and jobs, locking-postgres) on a PostgreSQL of this spec's own (the suite's shared
// database is untouched), migrated with `medusa db:migrate` and seeded as the demo seeds.
//
// While checkouts, webhooks and the reconciliation job (every 10 s) are in flight, PostgreSQL is
// shut down immediately (as in a crash: crash recovery on restart) and started again after
// OUTAGE_MS on the same data and port. Shows: every webhook that arrives meanwhile is answered
// 5xx, never 2xx, so the service sends it again; the Medusa process recovers by itself (same
// pid); afterwards every paid pay-in is captured exactly once (Medusa's own records: one payment
// per session, its captures' sum = its amount; the order's payment status), the checkouts cut
// off by the outage complete when the shopper tries again, and no order stays awaiting payment:
// a callback lost during the outage is caught by reconciliation.
import { readFileSync, rmSync } from "fs"
import os from "os"
import path from "path"
import pg from "pg"
import { closePayinPools } from "../../src/client/client"
import type { Transaction } from "../../src/client/schemas"
import type { RunningSandbox } from "../../src/sandbox"
import type { DemoSeedResult } from "../app/seed/demo-store"
import { TEST_ADMIN } from "../support/admin"
import { adminToken, capturedExactlyOnce, deliverTimed, orderPaymentStatuses, paymentsOfSessions } from "../support/faults"
import { MedusaProcess, eventually, runMedusa, startMedusa } from "../support/medusa-process"
import { PrivatePostgres, startPrivatePostgres } from "../support/private-postgres"
import { control, payinsOfSession, startTestSandbox } from "../support/sandbox"
import { Storefront, httpApi } from "../support/storefront"

jest.setTimeout(600_000)

const KEY = "faults-postgres-key-0123456789"
/** Orders placed before the outage; PAID_BEFORE of them are paid (and captured) before it. */
const ORDERS = 7
const PAID_BEFORE = 2
/** Paid the moment PostgreSQL goes: their callbacks are being delivered as it stops. */
const PAID_AT_STOP = 2
/** Checkouts under way when PostgreSQL stops. */
const CHECKOUTS_IN_FLIGHT = 2
const OUTAGE_MS = 20_000
const DATABASE = "payin_faults"

let server: PrivatePostgres
let sandbox: RunningSandbox
let medusa: MedusaProcess | undefined
let databaseUrl: string
let seed: DemoSeedResult
const seedFile = path.join(os.tmpdir(), `payin-faults-seed-${process.pid}.json`)

beforeAll(async () => {
  const started = Date.now()
  server = await startPrivatePostgres()
  const admin = new pg.Client({ connectionString: server.url("postgres") })
  await admin.connect()
  await admin.query(`create database ${DATABASE}`)
  await admin.end()
  databaseUrl = server.url(DATABASE)
  await runMedusa(["db:migrate"], { DATABASE_URL: databaseUrl })
  await runMedusa(["exec", "./seed/run-demo-seed.ts"], {
    DATABASE_URL: databaseUrl,
    DEMO_SEED_OUT: seedFile,
    DEMO_ADMIN_EMAIL: TEST_ADMIN.email,
    DEMO_ADMIN_PASSWORD: TEST_ADMIN.password,
  })
  seed = JSON.parse(readFileSync(seedFile, "utf8"))
  // The service retries a delivery that got no 2xx: 1 s, 2 s, 4 s, then every 8 s for a minute.
  sandbox = await startTestSandbox(KEY)
  sandbox.updateMerchant({ requisitesPerMethod: 1000, webhookRetryDelaysMs: [1_000, 2_000, 4_000, 8_000, 8_000, 8_000, 8_000, 8_000, 8_000, 8_000] })
  medusa = await startMedusa("store", {
    DATABASE_URL: databaseUrl,
    MEDUSA_WORKER_MODE: "shared",
    PAYIN_API_KEY: KEY,
    PAYIN_BASE_URL: sandbox.url,
    PAYIN_SECOND_API_KEY: undefined,
    PAYIN_APP_REDIS_URL: undefined,
    PAYIN_RECONCILE_INTERVAL_SECONDS: "10",
    PAYIN_RECONCILE_AFTER_SECONDS: "0",
  })
  sandbox.updateMerchant({ webhookUrl: `${medusa.url}/hooks/payin/default` })
  console.log(`[faults-postgres] own PostgreSQL, migrated, seeded, Medusa up in ${Date.now() - started} ms`)
})

afterAll(async () => {
  await medusa?.kill()
  await sandbox?.close()
  await closePayinPools()
  await server?.close()
  rmSync(seedFile, { force: true })
})

/** A checkout that may be cut off at any step; `advance` goes on from where it stopped. */
class Checkout {
  cartId?: string
  sessionId?: string
  payinId?: string
  orderId?: string
  error?: string
  constructor(private readonly shop: Storefront) {}

  async advance(): Promise<this> {
    try {
      this.cartId ??= await this.shop.cart()
      if (!this.sessionId) {
        const session = await this.shop.session(this.cartId, "pp_payin_default")
        this.sessionId = session.id as string
        this.payinId = payinsOfSession(sandbox, session.id)[0].id
      }
      if (!this.orderId) {
        const completed = await this.shop.complete(this.cartId)
        if (!completed.data?.order?.id) throw new Error(`complete: ${completed.status} ${JSON.stringify(completed.data)}`)
        this.orderId = completed.data.order.id as string
      }
      this.error = undefined
    } catch (error) {
      this.error = String(error)
    }
    return this
  }
}

it("PostgreSQL restarts under load: 5xx meanwhile, Medusa recovers by itself, every paid pay-in captured once", async () => {
  const store = medusa!
  const pid = store.child.pid
  const shop = new Storefront(httpApi(store.url), seed)
  const pay = (c: Checkout) => control(sandbox, "POST", `/_sandbox/transactions/${c.payinId}/pay`)
  const capturedOnce = async (cs: Checkout[]) => {
    const ids = cs.map((c) => c.sessionId!)
    return capturedExactlyOnce(await paymentsOfSessions(databaseUrl, ids), ids)
  }

  // Orders placed awaiting payment; the first ones paid and captured as usual.
  const orders: Checkout[] = []
  for (let i = 0; i < ORDERS; i++) {
    const c = await new Checkout(shop).advance()
    expect(c.error).toBeUndefined()
    orders.push(c)
  }
  const before = orders.slice(0, PAID_BEFORE)
  const atStop = orders.slice(PAID_BEFORE, PAID_BEFORE + PAID_AT_STOP)
  const during = orders.slice(PAID_BEFORE + PAID_AT_STOP)
  for (const c of before) await pay(c)
  await eventually("paid before the outage, captured", () => capturedOnce(before))
  await sandbox.webhooksIdle()

  // In flight: checkouts under way, callbacks being delivered, the job's runs (every 10 s).
  const inFlight = Array.from({ length: CHECKOUTS_IN_FLIGHT }, () => new Checkout(shop))
  const checkoutsRunning = Promise.all(inFlight.map((c) => c.advance()))
  for (const c of atStop) await pay(c)
  // PostgreSQL goes at once (immediate shutdown: no checkpoint, crash recovery on restart).
  const stopMs = await server.stop(0)
  const stoppedAt = Date.now()

  // Paid while it is down: the service calls back; the last one's callback is lost (no webhook
  // URL at that moment): only reconciliation can find it.
  const lost = during[during.length - 1]
  const called = during.slice(0, -1)
  const hookUrl = sandbox.merchant().webhookUrl!
  for (const c of called) await pay(c)
  sandbox.updateMerchant({ webhookUrl: null })
  await pay(lost)
  sandbox.updateMerchant({ webhookUrl: hookUrl })
  // The callbacks of the ones paid meanwhile delivered by hand too, timed: at once, and again
  // once the route's settings copy (5 s) is stale, so that its read of the settings waits too.
  const deliverAll = () =>
    Promise.all([...atStop, ...called].map((c) => deliverTimed(store.url, JSON.stringify(sandbox.transaction(c.payinId!) as Transaction), KEY)))
  const answers = [...(await deliverAll()), ...(await deliverAll())]
  console.log(`[faults-postgres] webhook answers while PostgreSQL was down: ${JSON.stringify(answers)}`)
  for (const a of answers) expect([a.error, (a.status ?? 0) >= 500]).toEqual([undefined, true])
  const wait = OUTAGE_MS - (Date.now() - stoppedAt)
  if (wait > 0) await new Promise((r) => setTimeout(r, wait))

  // PostgreSQL comes back on the same data and port; Medusa is not touched.
  const restartBegan = Date.now()
  await server.start()
  const restartedAt = Date.now()
  const outageMs = restartedAt - stoppedAt
  const deliveriesDuring = sandbox.deliveries().filter((d) => Date.parse(d.time) >= stoppedAt && Date.parse(d.time) < restartBegan)
  // the service never got a 2xx while the database was gone
  expect(deliveriesDuring.filter((d) => d.responseStatus !== null && d.responseStatus < 300)).toEqual([])

  await checkoutsRunning
  const cutOff = inFlight.filter((c) => c.error).length
  await eventually("the pay-ins called back during the outage captured once (the service's retries)", () => capturedOnce([...atStop, ...called]), 120_000, 500)
  const webhookRecoveryMs = Date.now() - restartedAt
  // the shoppers whose checkout was cut off try again, then pay
  for (const c of inFlight) {
    await eventually(`checkout ${c.cartId ?? "(no cart yet)"} completed on a retry`, async () => !(await c.advance()).error, 60_000, 500)
    await pay(c)
  }
  await eventually("the checkouts cut off by the outage paid and captured once", () => capturedOnce(inFlight), 120_000, 500)
  await eventually("the pay-in whose callback was lost captured once (reconciliation)", () => capturedOnce([lost]), 120_000, 500)
  const lostRecoveryMs = Date.now() - restartedAt

  console.log(
    `[faults-postgres] PostgreSQL stopped in ${stopMs} ms, down ${(outageMs / 1000).toFixed(1)} s, restarted in ${restartedAt - restartBegan} ms; ` +
      `${deliveriesDuring.length} service deliveries meanwhile (${JSON.stringify(deliveriesDuring.map((d) => d.responseStatus ?? d.error))}); ` +
      `${cutOff}/${CHECKOUTS_IN_FLIGHT} checkouts cut off; called-back pay-ins captured ${(webhookRecoveryMs / 1000).toFixed(1)} s after the restart, ` +
      `the lost callback's ${(lostRecoveryMs / 1000).toFixed(1)} s after`
  )

  // Nothing lost, nothing doubled, in Medusa's own records and on the ledger.
  const paid = [...orders, ...inFlight]
  expect(await capturedOnce(paid)).toBe(true)
  const token = await adminToken(store.url, TEST_ADMIN.email, TEST_ADMIN.password)
  const statuses = await orderPaymentStatuses(store.url, token, paid.map((c) => c.orderId!))
  expect(Object.values(statuses)).toEqual(paid.map(() => "captured"))
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  try {
    const rows = await eventually("every ledger row closed, its effect done", async () => {
      const { rows } = await db.query(
        `select t.session_id, t.status, t.effect_pending, t.captured_at is not null as captured,
           (select count(*)::int from payin_status_change h where h.transaction_id = t.id and h.to_status = 'closed') as closed_rows
         from payin_transaction t where t.session_id = any($1)`,
        [paid.map((c) => c.sessionId)]
      )
      return rows.length === paid.length && rows.every((r) => r.effect_pending === null) ? rows : null
    })
    for (const r of rows!) expect([r.status, r.captured, r.closed_rows]).toEqual(["closed", true, 1])
  } finally {
    await db.end()
  }
  // the same process throughout: it recovered by itself
  expect([store.child.exitCode, store.child.signalCode, store.child.pid]).toEqual([null, null, pid])
})
