// Health signals and alerts (issue 34), broken for real on Medusa's production topology: a real
// Redis, one PostgreSQL, two server processes and one worker (`medusa start`, MEDUSA_WORKER_MODE),
// the sandbox over HTTP. Every process (and this jest process's own app, a server) runs the
// periodic health check every 5 s; the alerts go to Medusa's Notification Module, on the `feed`
// channel and by e-mail to the recipient saved from the admin.
//
// One topology for the whole file (CI time), one test in steps, ordered so that the waits overlap:
//   1. the service stops calling back while two pay-ins are paid: the worker's reconciliation
//      captures them, `webhooks_missing` fails on a server's GET /admin/payin/health, one feed
//      alert and one e-mail; deliveries resume, a paid pay-in's webhook is applied: back to ok, one
//      recovery notice;
//   4. a capture Medusa refuses (its payment table refuses writes) with effectRetryLimit 1, booked
//      on the worker: `effects_failing` fails and its alert names the order;
//   3. the worker is killed (its jobs' runs stop; `jobs_overdue` fails two intervals and a slack
//      after the last run of the webhook inbox job, every 5 s), and meanwhile:
//   2. the key refused (401) then this store's address refused (403) by the service, each on a
//      checkout's pay-in creation: `service_key`, then `service_ip` naming the address the service
//      saw, each alerted once and, after an accepted call, out of failing (a warning: refused in
//      the last hour) with one recovery notice;
//   6. a paid pay-in's webhook stored by a server and booked by no one: `webhooks_backlog` fails
//      (a failed webhook waiting for its retry is not counted) and is alerted once; booked (by this
//      process, as a worker's drain would), it recovers with one notice;
//   5. five forged callbacks over both servers: `webhook_rejections` fails and is alerted once;
//   then `jobs_overdue` fails and is alerted once. At the end, over the whole run: exactly one
//   alert per incident and no other, in Medusa's notification records.
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { request } from "undici"
import type { RunningSandbox } from "../../src/sandbox"
import { TransactionSchema } from "../../src/client/schemas"
import { applyInboxEntry } from "../../src/money-path/inbox"
import { RECONCILE_JOB } from "../../src/money-path/reconcile"
import { WEBHOOK_INBOX_INTERVAL_SECONDS, WEBHOOK_INBOX_JOB, overdueAfterMs } from "../../src/modules/payin/job-runs/job-runs"
import { PAYIN_MODULE } from "../../src/modules/payin/key"
import type PayinModuleService from "../../src/modules/payin/service"
import { TEST_ADMIN } from "../support/admin"
import { adminToken, capturedExactlyOnce, paymentsOfSessions } from "../support/faults"
import { envForFile } from "../support/env"
import { fillInbox } from "../support/inbox-fill"
import { appSpec } from "../support/harness"
import { MedusaProcess, eventually, startMedusa } from "../support/medusa-process"
import { RunningRedis, startRedis } from "../support/redis"
import { control, payinsOfSession, sandboxForApp } from "../support/sandbox"
import { Storefront, httpApi } from "../support/storefront"

jest.setTimeout(600_000)

const KEY = "health-key-0123456789"
const WRONG_KEY = "health-not-the-key-9876543210"
/** An address that is not this machine's (TEST-NET-3). */
const FOREIGN_ADDRESS = "203.0.113.7"
const OPS = "ops@payin.test"
const CHECK_SECONDS = 5
const RECONCILE_SECONDS = 10
/** jobOverdue: two intervals and a slack (15 s at this interval) after the last run. */
const OVERDUE_AFTER_MS = overdueAfterMs(RECONCILE_SECONDS)
const PROVIDER = "pp_payin_default"

let sandbox: RunningSandbox
let redis: RunningRedis

beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})
// the runner's app in this process: a server (no jobs), which checks health like the others
envForFile({ MEDUSA_WORKER_MODE: "server", PAYIN_HEALTH_CHECK_INTERVAL_SECONDS: String(CHECK_SECONDS) })
sandboxForApp(KEY, { requisitesPerMethod: 1000, webhookUrl: null }, (s) => (sandbox = s))

type Signal = {
  id: string
  group: string
  provider_id: string | null
  state: "ok" | "warning" | "failing"
  since: string
  figure: any
  summary: string
  action: string
  link: string | null
  alerts: boolean
  alerted_at: string | null
}
type Health = { checked_at: string; state: string; check_interval_seconds: number; alerts: any; signals: Signal[] }
type Notification = { id: string; to: string; channel: string; template: string; data: any; created_at: string }

appSpec((h, { dbConfig }) => {
  it("webhooks missing, a refused key and address, a capture failing, the worker gone: each signal fails on the servers and is alerted once", async () => {
    const started = Date.now()
    const container = h.getContainer()
    const notificationModule = container.resolve(Modules.NOTIFICATION) as any
    const seed = await h.seedStore([PROVIDER])
    const role = (mode: "server" | "worker") => ({
      DATABASE_URL: dbConfig.clientUrl,
      MEDUSA_WORKER_MODE: mode,
      PAYIN_APP_REDIS_URL: redis.url,
      // the job ticks every 5 s; here it looks up every 10 s, pay-ins of any age
      PAYIN_RECONCILE_INTERVAL_SECONDS: String(RECONCILE_SECONDS),
      PAYIN_RECONCILE_AFTER_SECONDS: "0",
      PAYIN_HEALTH_CHECK_INTERVAL_SECONDS: String(CHECK_SECONDS),
    })
    const [serverA, serverB, worker]: MedusaProcess[] = await Promise.all([
      startMedusa("server A", role("server")),
      startMedusa("server B", role("server")),
      startMedusa("worker", role("worker")),
    ])
    const bootedMs = Date.now() - started
    const marks: string[] = [`booted ${(bootedMs / 1000).toFixed(1)} s`]
    const mark = (what: string) => marks.push(`${what} at ${((Date.now() - started) / 1000).toFixed(1)} s`)

    try {
      const A = serverA.url
      const auth = { headers: { authorization: `Bearer ${await adminToken(A, TEST_ADMIN.email, TEST_ADMIN.password)}` } }
      const adminA = httpApi(A)
      const shopA = new Storefront(adminA, seed)
      const shopB = new Storefront(httpApi(serverB.url), seed)
      const hookA = `${A}/hooks/payin/default`

      /** GET /admin/payin/health on a server, over HTTP. */
      const health = async (url = A): Promise<Health> => (await httpApi(url).get("/admin/payin/health", auth)).data
      const signalOf = (hlth: Health, id: string) => {
        const found = hlth.signals.find((s) => s.id === id && s.provider_id === (id === "jobs_overdue" ? null : PROVIDER))
        if (!found) throw new Error(`GET /admin/payin/health has no signal ${id}: ${JSON.stringify(hlth.signals.map((s) => [s.id, s.provider_id]))}`)
        return found
      }
      /** Polls a server's health until the signal is in `state`; resolves with the signal. */
      const signalBecomes = async (id: string, state: Signal["state"], timeoutMs = 60_000, url = A): Promise<Signal> => {
        let seen: Signal | null = null
        try {
          return (await eventually(
            `${id} ${state} on ${url}`,
            async () => {
              seen = signalOf(await health(url), id)
              return seen.state === state ? seen : null
            },
            timeoutMs,
            500
          ))!
        } catch (error) {
          throw new Error(`${(error as Error).message}; the signal as last seen: ${JSON.stringify(seen)}`)
        }
      }
      /** The admin's feed (GET /admin/notifications on a server): the health alerts. */
      const feed = async (): Promise<Notification[]> => {
        const { data } = await adminA.get("/admin/notifications?channel=feed&limit=1000", auth)
        return (data.notifications as Notification[]).filter((n) => n.template === "payin.health")
      }
      const alertsOf = async (signal: string, state: "failing" | "recovered") =>
        (await feed()).filter((n) => n.data?.signal === signal && n.data?.state === state)
      /** Waits for the first alert of an incident, then holds there is one. */
      const oneAlert = async (signal: string, state: "failing" | "recovered"): Promise<Notification> => {
        const found = (await eventually(
          `a ${state} feed alert for ${signal}`,
          async () => {
            const alerts = await alertsOf(signal, state)
            return alerts.length ? alerts : null
          },
          60_000,
          500
        ))!
        expect(found).toHaveLength(1)
        return found[0]
      }
      /**
       * The one failing alert of an incident, and the incident as both servers show it: failing
       * since the alert's `since`, alerted. (The state row is recorded before the alert is sent, so
       * by the time the alert exists both servers read the incident from it.)
       */
      const alertedIncident = async (id: string): Promise<{ alert: Notification; signal: Signal }> => {
        const alert = await oneAlert(id, "failing")
        const recorded = async (url: string) => {
          let seen: Signal | null = null
          try {
            return (await eventually(
              `${id} recorded failing since ${alert.data.since} on ${url}`,
              async () => {
                seen = signalOf(await health(url), id)
                return seen.state === "failing" && seen.since === alert.data.since && seen.alerted_at ? seen : null
              },
              10_000,
              200
            ))!
          } catch (error) {
            throw new Error(`${(error as Error).message}; the signal as last seen: ${JSON.stringify(seen)}`)
          }
        }
        const [onA, onB] = [await recorded(A), await recorded(serverB.url)]
        for (const s of [onA, onB]) expect(Date.parse(s.alerted_at!)).toBeGreaterThanOrEqual(Date.parse(s.since))
        expectAlertData(alert, onA, "failing")
        expect(alert.data.description).toContain(`since ${alert.data.since}`)
        return { alert, signal: onA }
      }
      /** E-mails to OPS (Medusa's notification records). */
      const emails = async (): Promise<Notification[]> => notificationModule.listNotifications({ channel: "email", to: OPS }, { take: 1000 })
      const merchant = async (patch: Record<string, unknown>) => expect((await control(sandbox, "PUT", "/_sandbox/merchant", patch)).status).toBe(200)
      const captured = async (sessionIds: string[]) => capturedExactlyOnce(await paymentsOfSessions(dbConfig.clientUrl, sessionIds), sessionIds)
      const rowOf = async (sessionId: string) => (await h.ledger.rows({ session_id: sessionId }))[0]
      /** A placed order awaiting its payment; resolves once the worker linked its pay-in to the order. */
      const placeOrder = async (shop: Storefront) => {
        const cartId = await shop.cart()
        const session = await shop.session(cartId, PROVIDER)
        const orderId = (await shop.complete(cartId)).data.order.id as string
        await eventually(`pay-in of ${orderId} linked`, async () => (await rowOf(session.id))?.order_id === orderId, 30_000, 200)
        return { sessionId: session.id as string, payinId: payinsOfSession(sandbox, session.id)[0].id as string, orderId }
      }
      /** The common shape of an alert's data (contract: Alerts). */
      const expectAlertData = (n: Notification, signal: Signal, state: "failing" | "recovered") => {
        expect(n).toMatchObject({ channel: "feed", to: "", template: "payin.health" })
        expect(n.data).toMatchObject({
          signal: signal.id,
          provider_id: signal.provider_id,
          state,
          title: expect.stringMatching(/^Pay-ins\b/),
          description: expect.any(String),
          action: expect.any(String),
          since: expect.any(String),
          figure: expect.any(Object),
        })
        expect(n.data.action.length).toBeGreaterThan(20)
        expect(Number.isNaN(Date.parse(n.data.since))).toBe(false)
      }

      // The alerts also go by e-mail, to the recipient saved from the admin (one process saves,
      // the others read it from the database).
      const saved = await adminA.post("/admin/payin/settings", { alertEmailRecipients: [OPS], webhookBacklogSeconds: 10 }, auth)
      expect(saved.status).toBe(200)
      const before = await health()
      expect(before).toMatchObject({ check_interval_seconds: CHECK_SECONDS, alerts: { enabled: true, email_recipients: 1 } })
      // the worker's reconciliation runs (the retention job, every 10 minutes, may not have run
      // yet: at most a warning): nothing fails at the start, nothing alerted
      await eventually(
        "the reconciliation job ran on the worker",
        async () => {
          const jobs = signalOf(await health(), "jobs_overdue")
          return jobs.state !== "failing" && jobs.figure.jobs.some((j: any) => j.name === RECONCILE_JOB && j.last_run_at && !j.overdue)
        },
        60_000,
        500
      )
      for (const id of ["webhooks_missing", "webhook_rejections", "service_key", "service_ip", "effects_failing"]) expect(signalOf(await health(), id).state).toBe("ok")
      expect(await feed()).toEqual([])

      // Orders awaiting payment, placed while the worker runs (it handles order.placed, which
      // links each pay-in to its order).
      const missed = [await placeOrder(shopA), await placeOrder(shopB)]
      const afterResume = await placeOrder(shopA)
      const captureFails = await placeOrder(shopB)
      const waits = await placeOrder(shopA)
      mark("orders placed")

      // 1. The service stops calling back; two pay-ins are paid meanwhile.
      await merchant({ webhookUrl: null })
      const paidAt = Date.now()
      for (const o of missed) await control(sandbox, "POST", `/_sandbox/transactions/${o.payinId}/pay`)
      // the worker's reconciliation looks them up: the orders are captured all the same
      await eventually("the unannounced payments captured by reconciliation", () => captured(missed.map((o) => o.sessionId)), 60_000, 500)
      for (const o of missed) {
        const { data: history } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
          entity: "payin_status_change",
          fields: ["to_status", "source"],
          filters: { transaction_id: (await rowOf(o.sessionId)).id, to_status: "closed" },
        })
        expect(history).toEqual([expect.objectContaining({ source: "lookup" })])
      }
      expect(sandbox.deliveries().filter((d) => missed.some((o) => o.payinId === d.transactionId))).toEqual([])
      // a server's health: webhooks missing
      const missing = await signalBecomes("webhooks_missing", "failing", 30_000)
      expect(missing.figure).toMatchObject({ missed: 2, window_minutes: 60 })
      expect(Date.parse(missing.since)).toBeGreaterThanOrEqual(paidAt - 1000)
      expect(missing).toMatchObject({ group: "webhooks", alerts: true, summary: expect.stringContaining("2 pay-ins") })
      const { alert: missingAlert } = await alertedIncident("webhooks_missing")
      mark("webhooks_missing alerted")
      expect(missingAlert.data.title).toBe("Pay-ins: webhooks are not arriving (default)")
      expect(missingAlert.data.figure).toMatchObject({ missed: 2 })
      expect(missingAlert.data.description).toContain("2 pay-ins")
      // one e-mail to the recipient
      const missingMail = (await eventually(
        "the webhooks_missing e-mail",
        async () => {
          const mails = (await emails()).filter((n) => n.data?.signal === "webhooks_missing" && n.template === "payin.health.failing")
          return mails.length ? mails : null
        },
        30_000,
        500
      ))!
      expect(missingMail).toHaveLength(1)
      expect(missingMail[0].data).toMatchObject({ title: missingAlert.data.title, description: missingAlert.data.description })
      // the incident lasts two check intervals with the worker alive: every process (two servers,
      // the worker, this one) checked it at least once, and it was alerted once
      await eventually("two check intervals into the incident", async () => Date.now() - Date.parse(missingAlert.data.since) >= 2 * CHECK_SECONDS * 1000, 30_000, 250)
      expect([worker.child.exitCode, worker.child.signalCode]).toEqual([null, null])
      expect(await alertsOf("webhooks_missing", "failing")).toHaveLength(1)

      // Deliveries resume; a paid pay-in's webhook is applied: webhooks arrive again.
      await merchant({ webhookUrl: hookA })
      await control(sandbox, "POST", `/_sandbox/transactions/${afterResume.payinId}/pay`)
      await sandbox.webhooksIdle()
      expect(sandbox.deliveries().filter((d) => d.transactionId === afterResume.payinId).map((d) => d.responseStatus)).toEqual([200])
      await eventually("the webhook's payment captured", () => captured([afterResume.sessionId]), 30_000, 250)
      const arriving = await signalBecomes("webhooks_missing", "ok", 30_000)
      expect(arriving.figure).toMatchObject({ missed: 0 })
      const recovered = await oneAlert("webhooks_missing", "recovered")
      mark("webhooks_missing recovered")
      expectAlertData(recovered, arriving, "recovered")
      expect(recovered.data.title).toMatch(/^Pay-ins: webhooks .*again \(default\)$/)
      expect(recovered.data.description).toContain(missingAlert.data.since)
      expect(recovered.data.since).toBe(missingAlert.data.since)

      // 4. A capture Medusa refuses, past its retries (effectRetryLimit 1): Medusa's payment
      //    table refuses writes while the pay-in is paid and its webhook booked on the worker.
      expect((await adminA.post("/admin/payin/settings", { effectRetryLimit: 1 }, auth)).status).toBe(200)
      // the worker books it: it reads settings at most 5 s old
      await new Promise((r) => setTimeout(r, 6_000))
      // the block stays until the worker is gone: no retry of it may succeed and recover the signal
      await h.sql(`alter table "payment" add constraint payin_test_block check (false) not valid`)
      {
        await control(sandbox, "POST", `/_sandbox/transactions/${captureFails.payinId}/pay`)
        await sandbox.webhooksIdle()
        const flagged = await eventually(
          "the capture failed and flagged",
          async () => {
            const row = await rowOf(captureFails.sessionId)
            return row.effect_pending === "capture" && row.flags?.capture_failed ? row : null
          },
          30_000,
          250
        )
        // failed: past effectRetryLimit 1, flagged (the worker's reconciliation may have retried it once more meanwhile)
        expect(flagged).toMatchObject({ status: "closed", flags: { capture_failed: expect.objectContaining({ attempts: flagged.effect_attempts }) } })
        expect(flagged.effect_attempts).toBeGreaterThanOrEqual(1)
      }
      expect(await captured([captureFails.sessionId])).toBe(false)
      const effects = await signalBecomes("effects_failing", "failing", 30_000)
      expect(effects.figure).toMatchObject({ failed: 1, orders: [captureFails.orderId] })
      expect(effects.link).toBe("/payin?flag=capture_failed")
      const { alert: effectsAlert } = await alertedIncident("effects_failing")
      mark("effects_failing alerted")
      expect(effectsAlert.data.description).toContain(captureFails.orderId)

      // 3. The worker is killed: no process runs the plugin's jobs any more. jobs_overdue fails
      //    two intervals and a slack after the last run: steps 2, 4 and 5 run meanwhile.
      const lastRun = await h.ledger.lastJobRun(WEBHOOK_INBOX_JOB)
      await worker.kill()
      const killedAt = Date.now()
      await h.sql(`alter table "payment" drop constraint payin_test_block`)
      mark("worker killed")
      expect(signalOf(await health(), "jobs_overdue").state).not.toBe("failing")

      // 2a. The service refuses the key (rotated in the merchant panel, not here): a checkout's
      //     pay-in creation gets 401.
      await merchant({ apiKey: WRONG_KEY })
      const refusedAt = Date.now()
      const keyRefused = await shopB.sessionError(await shopB.cart(), PROVIDER)
      expect(keyRefused.status).toBeGreaterThanOrEqual(400)
      const keySignal = await signalBecomes("service_key", "failing", 30_000)
      expect(keySignal.figure).toMatchObject({ refused: expect.any(Number) })
      expect(keySignal.figure.refused).toBeGreaterThanOrEqual(1)
      expect(Date.parse(keySignal.figure.last_at)).toBeGreaterThanOrEqual(refusedAt - 1000)
      expect(keySignal).toMatchObject({ group: "service", link: "/settings/payin#payin-section-connection" })
      const { alert: keyAlert } = await alertedIncident("service_key")
      mark("service_key alerted")
      expect(keyAlert.data.description).toContain("401")
      // the key is set right again: an accepted call ends the incident
      await merchant({ apiKey: KEY })
      await shopA.session(await shopA.cart(), PROVIDER)
      await signalBecomes("service_key", "warning", 30_000)
      await oneAlert("service_key", "recovered")

      // 2b. The service's whitelist holds another address: this store's calls get 403 naming the
      //     address the service saw (the same for this process: one machine, one loopback).
      await merchant({ whitelist: [FOREIGN_ADDRESS] })
      const probe = await request(`${sandbox.url}/payment/trading/banks`, { headers: { "x-api-key": KEY } })
      const probeBody = (await probe.body.json()) as { message: string }
      expect(probe.statusCode).toBe(403)
      const seenAddress = /address (\S+) is not whitelisted/.exec(probeBody.message)?.[1]
      expect(seenAddress).toBeTruthy()
      const ipRefused = await shopB.sessionError(await shopB.cart(), PROVIDER)
      expect(ipRefused.status).toBeGreaterThanOrEqual(400)
      const ipSignal = await signalBecomes("service_ip", "failing", 30_000)
      expect(ipSignal.figure).toMatchObject({ address: seenAddress })
      expect(ipSignal.figure.refused).toBeGreaterThanOrEqual(1)
      const { alert: ipAlert } = await alertedIncident("service_ip")
      mark("service_ip alerted")
      expect(ipAlert.data.description).toContain(seenAddress)
      expect(ipAlert.data.figure).toMatchObject({ address: seenAddress })
      await merchant({ whitelist: [] })
      await shopA.session(await shopA.cart(), PROVIDER)
      await signalBecomes("service_ip", "warning", 30_000)
      await oneAlert("service_ip", "recovered")

      // 6. No worker books webhooks: a paid pay-in's webhook is answered 200 by server A and stored,
      //    then waits; past webhookBacklogSeconds (10 s here) `webhooks_backlog` fails, alerted once.
      await control(sandbox, "POST", `/_sandbox/transactions/${waits.payinId}/pay`)
      await sandbox.webhooksIdle()
      expect(sandbox.deliveries().filter((d) => d.transactionId === waits.payinId).map((d) => d.responseStatus)).toEqual([200])
      // a webhook that failed 10 minutes ago and waits for its retry (in an hour) is no backlog: it has an error of its own
      await fillInbox(h.knex(), { count: 1, tag: "hfail", newest: new Date(Date.now() - 600_000), state: "failed" })
      const backlog = await signalBecomes("webhooks_backlog", "failing", 60_000)
      expect(backlog.figure).toMatchObject({ count: 1, threshold_seconds: 10 })
      expect(backlog.figure.waiting_seconds).toBeGreaterThanOrEqual(10)
      const { alert: backlogAlert } = await alertedIncident("webhooks_backlog")
      mark("webhooks_backlog alerted")
      expect(backlogAlert.data.description).toContain("MEDUSA_WORKER_MODE")
      expect(await captured([waits.sessionId])).toBe(false)
      const [waiting] = await h.ledger.inbox.events({ service_id: waits.payinId })
      expect(waiting.state).toBe("received")
      // booked at last (this process does what a worker's drain does): captured, and the backlog recovers, one notice
      const booked = await applyInboxEntry(container, waiting.id, PROVIDER, TransactionSchema.parse(JSON.parse(waiting.raw_body)))
      expect(booked.outcome).toBe("applied")
      expect(await h.ledger.inbox.entry(waiting.id)).toMatchObject({ state: "applied" })
      await eventually("the waiting webhook's payment captured", () => captured([waits.sessionId]), 30_000, 250)
      const drained = await signalBecomes("webhooks_backlog", "ok", 30_000)
      expect(drained.figure).toMatchObject({ count: 0, oldest_at: null })
      const backlogRecovered = await oneAlert("webhooks_backlog", "recovered")
      mark("webhooks_backlog recovered")
      expectAlertData(backlogRecovered, drained, "recovered")
      expect(backlogRecovered.data.title).toBe("Pay-ins: webhooks are booked again (default)")
      expect(backlogRecovered.data.since).toBe(backlogAlert.data.since)

      // 5. Forged callbacks (a wrong signature), five over both servers: each answered 401,
      //    `webhook_rejections` fails at its threshold (5 in the last hour) and is alerted once.
      for (const [k, url] of [A, serverB.url, A, serverB.url, A].entries()) {
        const forged = await request(`${url}/hooks/payin/default`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-signature": "0".repeat(64) },
          body: JSON.stringify({ id: `forged-${k}`, status: "closed" }),
        })
        expect(forged.statusCode).toBe(401)
        await forged.body.dump()
      }
      const rejections = await signalBecomes("webhook_rejections", "failing", 30_000)
      expect(rejections.figure).toMatchObject({ signature_failures: 5, rejected: 5, last_reason: "signature_mismatch" })
      const { alert: rejectionsAlert } = await alertedIncident("webhook_rejections")
      mark("webhook_rejections alerted")
      expect(rejectionsAlert.data.description).toContain("5 with a bad signature")

      // 3 (cont.). No worker: the reconciliation job is overdue, on a server.
      const overdue = await signalBecomes("jobs_overdue", "failing", OVERDUE_AFTER_MS + 60_000 - (Date.now() - killedAt))
      mark("jobs_overdue failing")
      // not before two intervals and the slack after the last run of the first job due (the webhook inbox's, every 5 s)
      expect(Date.parse(overdue.since)).toBeGreaterThanOrEqual(new Date(lastRun!.last_run_at).getTime() + overdueAfterMs(WEBHOOK_INBOX_INTERVAL_SECONDS) - 1000)
      expect(overdue.figure.jobs).toEqual(expect.arrayContaining([expect.objectContaining({ name: WEBHOOK_INBOX_JOB, overdue: true, interval_seconds: WEBHOOK_INBOX_INTERVAL_SECONDS })]))
      const { alert: jobsAlert } = await alertedIncident("jobs_overdue")
      mark("jobs_overdue alerted")
      expect(jobsAlert.data.provider_id).toBeNull()
      expect(jobsAlert.data.description).toContain(WEBHOOK_INBOX_JOB)
      // and the reconciliation's too, once its own window passed
      await eventually("the reconciliation job overdue too", async () => signalOf(await health(), "jobs_overdue").figure.jobs.some((j: any) => j.name === RECONCILE_JOB && j.overdue), 60_000, 500)

      // A check whose figures are older than what another process recorded (a slow check: here
      // from before the job was overdue) changes nothing and sends nothing: it once recorded "ok"
      // and sent a recovery between two checks that both saw the job overdue.
      const payinModule = container.resolve<PayinModuleService>(PAYIN_MODULE)
      const stale = await payinModule.health.check(
        payinModule.healthEnv(),
        async () => {
          throw new Error("a stale check sent an alert")
        },
        new Date(new Date(lastRun!.last_run_at).getTime() + 1000)
      )
      expect(stale.sent).toEqual([])
      expect(signalOf(await health(), "jobs_overdue")).toMatchObject({ state: "failing", since: jobsAlert.data.since })

      // Over the whole run, in Medusa's records: one alert per incident, none else, although two
      // servers, the worker (while it lived) and this process all checked every 5 s.
      const all = await feed()
      const tally = all.map((n) => `${n.data.signal}:${n.data.state}`).sort()
      expect(tally).toEqual(
        [
          "effects_failing:failing",
          "jobs_overdue:failing",
          "service_ip:failing",
          "service_ip:recovered",
          "service_key:failing",
          "service_key:recovered",
          "webhooks_missing:failing",
          "webhooks_missing:recovered",
          "webhook_rejections:failing",
          "webhooks_backlog:failing",
          "webhooks_backlog:recovered",
        ].sort()
      )
      const mails = (await emails()).map((n) => `${n.data.signal}:${n.template}`).sort()
      expect(mails).toEqual(
        [
          "effects_failing:payin.health.failing",
          "jobs_overdue:payin.health.failing",
          "service_ip:payin.health.failing",
          "service_ip:payin.health.recovered",
          "service_key:payin.health.failing",
          "service_key:payin.health.recovered",
          "webhooks_missing:payin.health.failing",
          "webhooks_missing:payin.health.recovered",
          "webhook_rejections:payin.health.failing",
          "webhooks_backlog:payin.health.failing",
          "webhooks_backlog:payin.health.recovered",
        ].sort()
      )
      // the unannounced and the called-back payments were captured once each
      expect(await captured([...missed, afterResume, waits].map((o) => o.sessionId))).toBe(true)
      // who sent them: the process whose check moved the state row (logged by the sender only)
      const senders = Object.fromEntries(
        tally.map((t) => {
          const [signal, state] = t.split(":")
          const line = new RegExp(`payin health: ${signal}\\b[^\\n]*${state === "failing" ? "is failing" : "recovered"}`)
          const by = [serverA, serverB, worker].filter((p) => line.test(p.log())).map((p) => p.name)
          return [t, by.length ? by.join(", ") : "this process"]
        })
      )
      console.log(`[health] ${marks.join("; ")}; total ${((Date.now() - started) / 1000).toFixed(1)} s; alerts sent by ${JSON.stringify(senders)}`)
    } finally {
      await Promise.all([serverA.kill(), serverB.kill(), worker.kill()])
    }
  })
})
