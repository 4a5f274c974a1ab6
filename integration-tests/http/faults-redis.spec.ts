// The store's own Redis crashes and comes back empty, on Medusa's production topology: one server
// and one worker (`medusa start`, MEDUSA_WORKER_MODE) sharing a Redis of our own (event bus,
// workflow engine, locking, caching) and one PostgreSQL. The test runner's app in this jest
// process only seeds the database and reads it (server mode, no Redis: no jobs, nothing applied here).
//
// Shows: while Redis is gone (SIGKILL, no persistence) a webhook is still stored in PostgreSQL and
// answered 200 at once (the wake-up event it cannot emit is not waited for; before the booking
// moved to the worker it was 503 after the 8 s deadline, and 44 s before the deadline existed),
// and nothing is booked meanwhile (the worker's locks live in Redis); Redis comes back empty on
// the same port, its events lost, and without restarting anything the worker's inbox job (on
// the schedule watchdog) books every stored callback exactly once. A callback lost during the outage is
// captured by reconciliation with no restart either: Medusa's job schedule lived in Redis and is
// gone with it (asserted before, printed after), and the plugin's schedule watchdog in the worker
// runs the overdue job itself.
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { RECONCILE_JOB } from "../../src/money-path/reconcile"
import type { Transaction } from "../../src/client/schemas"
import type { RunningSandbox } from "../../src/sandbox"
import { TEST_ADMIN } from "../support/admin"
import { adminToken, capturedExactlyOnce, deliverTimed, orderPaymentStatuses, paymentsOfSessions } from "../support/faults"
import { envForFile } from "../support/env"
import { appSpec } from "../support/harness"
import { MedusaProcess, appDir, eventually, startMedusa } from "../support/medusa-process"
import { OwnRedis, redisKeys, startOwnRedis } from "../support/redis"
import { control, payinsOfSession, sandboxForApp } from "../support/sandbox"
import { Storefront, httpApi } from "../support/storefront"

jest.setTimeout(600_000)

const KEY = "faults-redis-key-0123456789"
const ORDERS = 8
/** Paid (and captured) before the crash; the rest are paid while Redis is down. */
const PAID_BEFORE = 3
const OUTAGE_MS = 15_000
/** A webhook answer slower than this is a hang (the route answers within WEBHOOK_ANSWER_DEADLINE_MS, 8 s). */
const HANG_MS = 30_000

let sandbox: RunningSandbox
let redis: OwnRedis

beforeAll(async () => {
  redis = await startOwnRedis()
})
afterAll(async () => {
  await redis?.stop()
})
// the runner's app in this process: no jobs, no Redis, nothing applied here
envForFile({ MEDUSA_WORKER_MODE: "server" })
// The service retries a delivery that got no 2xx (1 s, 2 s, 4 s, then every 8 s for a minute) and
// waits for an answer longer than the route's deadline, so that a hang is seen as one.
sandboxForApp(
  KEY,
  { requisitesPerMethod: 1000, webhookUrl: null, webhookRetryDelaysMs: [1_000, 2_000, 4_000, 8_000, 8_000, 8_000, 8_000, 8_000, 8_000, 8_000], webhookTimeoutMs: HANG_MS + 15_000 },
  (s) => (sandbox = s)
)

appSpec((h, { dbConfig }) => {
  const { getContainer } = h
  it("Redis crashes and restarts empty: webhooks stored and answered 200 meanwhile, never hang; every paid pay-in captured once after", async () => {
    const container = getContainer()
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const seed = await h.seedStore(["pp_payin_default"])
    const role = (mode: "server" | "worker") => ({
      DATABASE_URL: dbConfig.clientUrl,
      MEDUSA_WORKER_MODE: mode,
      PAYIN_APP_REDIS_URL: redis.url,
      PAYIN_RECONCILE_INTERVAL_SECONDS: "10",
      PAYIN_RECONCILE_AFTER_SECONDS: "0",
    })
    const bootStarted = Date.now()
    let [server, worker]: MedusaProcess[] = await Promise.all([startMedusa("server", role("server")), startMedusa("worker", role("worker"))])
    console.log(`[faults-redis] server and worker booted in ${Date.now() - bootStarted} ms`)
    const serverPid = server.child.pid
    const hookUrl = `${server.url}/hooks/payin/default`
    sandbox.updateMerchant({ webhookUrl: hookUrl })

    const payments = (sessionIds: string[]) => paymentsOfSessions(dbConfig.clientUrl, sessionIds)
    const capturedOnce = async (sessionIds: string[]) => capturedExactlyOnce(await payments(sessionIds), sessionIds)
    const callbackOf = (payinId: string) => JSON.stringify(sandbox.transaction(payinId) as Transaction)
    /** Whether Medusa's scheduler holds the reconciliation job (a BullMQ repeatable job in Redis). */
    const reconcileScheduled = async () => (await redisKeys(redis.url, `bull:*:repeat:schedule_job-${RECONCILE_JOB}`)).length > 0

    try {
      // Orders placed awaiting payment, on the server.
      const shop = new Storefront(httpApi(server.url), seed)
      const orders: { sessionId: string; payinId: string; orderId: string }[] = []
      for (let i = 0; i < ORDERS; i++) {
        const cartId = await shop.cart()
        const session = await shop.session(cartId, "pp_payin_default")
        const orderId = (await shop.complete(cartId)).data.order.id as string
        orders.push({ sessionId: session.id, payinId: payinsOfSession(sandbox, session.id)[0].id, orderId })
      }
      const before = orders.slice(0, PAID_BEFORE)
      const during = orders.slice(PAID_BEFORE)
      for (const o of before) await control(sandbox, "POST", `/_sandbox/transactions/${o.payinId}/pay`)
      await eventually("paid before the crash, captured", () => capturedOnce(before.map((o) => o.sessionId)))
      await sandbox.webhooksIdle()
      expect(await reconcileScheduled()).toBe(true)

      // Redis crashes: nothing saved, the clients see their connections drop.
      await redis.kill()
      const crashedAt = Date.now()
      // Paid while Redis is down: the service calls back (and retries); the last one's callback
      // is lost (no webhook URL at that moment): only reconciliation can find it.
      const lost = during[during.length - 1]
      const called = during.slice(0, -1)
      for (const o of called) await control(sandbox, "POST", `/_sandbox/transactions/${o.payinId}/pay`)
      sandbox.updateMerchant({ webhookUrl: null })
      await control(sandbox, "POST", `/_sandbox/transactions/${lost.payinId}/pay`)
      sandbox.updateMerchant({ webhookUrl: hookUrl })
      // The same callbacks delivered by hand, all at once, timed.
      const answers = await Promise.all(called.map((o) => deliverTimed(server.url, callbackOf(o.payinId), KEY, HANG_MS + 15_000)))
      console.log(`[faults-redis] webhook answers while Redis was down: ${JSON.stringify(answers)}`)
      for (const a of answers) {
        expect([a.error, a.status]).toEqual([undefined, 200])
        expect(a.ms).toBeLessThan(HANG_MS)
      }
      // nothing got captured meanwhile
      expect((await payments(during.map((o) => o.sessionId))).flatMap((s) => s.payments)).toEqual([])
      const downFor = OUTAGE_MS - (Date.now() - crashedAt)
      if (downFor > 0) await new Promise((r) => setTimeout(r, downFor))
      const outageMs = Date.now() - crashedAt

      // Redis comes back empty on the same port: no queued events, no workflow state, no locks.
      await redis.restart()
      const restartedAt = Date.now()
      await eventually("every pay-in called back during the outage captured once", () => capturedOnce(called.map((o) => o.sessionId)), 180_000, 500)
      const recoveryMs = Date.now() - restartedAt
      const deliveriesDuring = sandbox.deliveries().filter((d) => Date.parse(d.time) >= crashedAt && Date.parse(d.time) < restartedAt)
      console.log(
        `[faults-redis] Redis down ${(outageMs / 1000).toFixed(1)} s; ${deliveriesDuring.length} service deliveries meanwhile ` +
          `(${JSON.stringify(deliveriesDuring.map((d) => d.responseStatus ?? d.error))}); ` +
          `the called-back pay-ins captured ${(recoveryMs / 1000).toFixed(1)} s after Redis came back`
      )
      // while Redis was down the service's own deliveries were stored and answered 200 too
      expect(deliveriesDuring.filter((d) => d.responseStatus !== 200)).toEqual([])

      // The lost callback. Medusa keeps scheduled jobs as BullMQ repeatable jobs in Redis: Redis
      // back empty has none, so Medusa's scheduler no longer runs the reconciliation job until
      // the worker restarts. The plugin's schedule watchdog (src/money-path/schedule-watchdog.ts)
      // in the worker sees the job overdue in the database and runs it itself: no restart.
      const scheduledAfterCrash = await reconcileScheduled()
      await eventually("the pay-in whose callback was lost captured once (reconciliation on the watchdog)", () => capturedOnce([lost.sessionId]), 240_000, 500)
      const lostRecoveryMs = Date.now() - restartedAt
      // the cause it names is the one it sees: Medusa stopped calling the job, whose schedule Redis kept
      expect(worker.log()).toMatch(/payin-reconcile is almost overdue [^\n]*has not called it in this process[^\n]*kept in Redis/)
      // The timer runs each job before it would be overdue: the health warns (restart the workers)
      // and never fails meanwhile. It ran them only once overdue, and jobs_overdue failed and
      // recovered every 5-15 s, one alert each (soak seed 1).
      const token = await adminToken(server.url, TEST_ADMIN.email, TEST_ADMIN.password)
      const jobsSignal = async () => {
        const res = await fetch(`${server.url}/admin/payin/health`, { headers: { authorization: `Bearer ${token}` } })
        return ((await res.json()) as { signals: { id: string; state: string; summary: string; figure: any }[] }).signals.find((x) => x.id === "jobs_overdue")!
      }
      const warned = await eventually("the health says the plugin's timer runs the jobs", async () => {
        const signal = await jobsSignal()
        return signal.state === "warning" && signal.figure.jobs.some((j: any) => j.run_by_timer) ? signal : null
      }, 120_000, 1_000)
      expect(warned!.summary).toMatch(/restart the workers/)
      const states: string[] = []
      for (let i = 0; i < 40; i++) {
        states.push((await jobsSignal()).state)
        await new Promise((r) => setTimeout(r, 1_000))
      }
      expect(states.filter((state) => state === "failing")).toEqual([])
      console.log(
        `[faults-redis] reconciliation scheduled by Medusa after Redis came back empty: ${scheduledAfterCrash}; the lost callback's pay-in ` +
          `captured ${(lostRecoveryMs / 1000).toFixed(1)} s after Redis came back, with no restart (the plugin's schedule watchdog)`
      )

      // Nothing lost, nothing doubled: one payment per session, captured once for its amount;
      // every ledger row closed once, its effect done.
      expect(await capturedOnce(orders.map((o) => o.sessionId))).toBe(true)
      for (const o of orders) {
        const row = await eventually(`ledger of ${o.payinId} done`, async () => {
          const [r] = await h.ledger.rows({ session_id: o.sessionId })
          return r && !r.effect_pending ? r : null
        })
        expect([row.status, Boolean(row.captured_at)]).toEqual(["closed", true])
        const { data: history } = await query.graph({
          entity: "payin_status_change",
          fields: ["to_status", "source"],
          filters: { transaction_id: row.id, to_status: "closed" },
        })
        expect(history).toHaveLength(1)
      }
      // no order stays awaiting payment
      const statuses = await orderPaymentStatuses(server.url, token, orders.map((o) => o.orderId))
      expect(Object.values(statuses)).toEqual(orders.map(() => "captured"))
      // the server recovered by itself: the process started at the beginning
      expect([server.child.exitCode, server.child.pid]).toEqual([null, serverPid])
    } finally {
      await Promise.all([server.kill(), worker.kill()])
    }
  })
})
