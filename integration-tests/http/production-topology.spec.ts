// Medusa's production topology, for real: a real Redis (event bus, workflow engine, locking,
// caching), one PostgreSQL, two server processes and one worker process (`medusa start`) of the
// same app config (MEDUSA_WORKER_MODE), the plugin registered through withPayin. The test runner's
// own app in this jest process only seeds the database and reads it (server mode: no jobs).
//
// Shows: callbacks delivered three times, concurrently and shuffled, to both servers capture each
// order once; webhooks that never came are completed by the worker's reconciliation job; a worker
// and a server SIGKILLed between "ledger recorded closed" and "Medusa captured" (a test-only
// pause, PAYIN_TEST_PAUSE_FILE) lose nothing and double nothing after a restart (time measured);
// a key rotated from the admin on server A is used at once by server B and the worker; the
// order.placed link and the plugin's events are handled on the worker; shopper notifications
// (switched on from the admin) are sent by the worker only, exactly one per order and kind; pay
// again works across the processes (one new pay-in for two servers asked at once; the worker
// cancels the order whose grace period ended unpaid); a burst of callbacks while the worker that
// books them is SIGKILLed halfway: answered 200 by the servers, each order captured once after
// the restart.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync, readFileSync } from "fs"
import os from "os"
import path from "path"
import { request } from "undici"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { Transaction } from "../../src/client/schemas"
import { sign } from "../../src/client/signature"
import type { RunningSandbox } from "../../src/sandbox"
import { adminHeaders } from "../support/admin"
import { envForFile } from "../support/env"
import { PAYIN_EVENTS, appSpec } from "../support/harness"
import { MedusaProcess, appDir, eventually, pool, shuffle, startMedusa } from "../support/medusa-process"
import { RunningRedis, startRedis } from "../support/redis"
import { control, payinsOfSession, sandboxForApp } from "../support/sandbox"
import { Storefront, httpApi } from "../support/storefront"

jest.setTimeout(600_000)

const KEY = "topology-key-0123456789"
const ROTATED = "topology-rotated-key-XYZ789"
const PAUSED = "payin-test: paused before the capture of "
/** Callbacks of the burst whose worker is killed halfway (step 9). */
const BURST = 24
let sandbox: RunningSandbox
let redis: RunningRedis

// A test-only plugin whose subscriber writes down which process handled each event.
const work = mkdtempSync(path.join(os.tmpdir(), "payin-topology-"))
chmodSync(work, 0o755)
const probeDir = path.join(work, "probe")
const probeLog = path.join(work, "events.jsonl")
const pauseFile = path.join(work, "pause")
const probeEvents = ["order.placed", ...Object.values(PAYIN_EVENTS)]
mkdirSync(path.join(probeDir, ".medusa", "server", "src", "subscribers"), { recursive: true })
writeFileSync(path.join(probeDir, "package.json"), JSON.stringify({ name: "payin-topology-probe", version: "0.0.0", main: "index.js" }))
writeFileSync(path.join(probeDir, "index.js"), "")
writeFileSync(
  path.join(probeDir, ".medusa", "server", "src", "subscribers", "probe.js"),
  `const fs = require("fs")
exports.default = async function payinTopologyProbe({ event }) {
  const line = { name: event.name, id: event.data && event.data.id, mode: process.env.MEDUSA_WORKER_MODE || "shared", pid: process.pid }
  fs.appendFileSync(${JSON.stringify(probeLog)}, JSON.stringify(line) + "\\n")
}
exports.config = { event: ${JSON.stringify(probeEvents)} }
`
)
const handled = (): { name: string; id: string; mode: string; pid: number }[] =>
  existsSync(probeLog)
    ? readFileSync(probeLog, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : []

beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
  rmSync(work, { recursive: true, force: true })
})
// the runner's app in this process: no jobs, nothing applied here
envForFile({ MEDUSA_WORKER_MODE: "server", PAYIN_ENCRYPTION_KEY: "topology-encryption-secret-0123456789" })
sandboxForApp(KEY, { requisitesPerMethod: 1000, webhookUrl: null }, (s) => (sandbox = s))

async function deliver(url: string, body: string, key: string): Promise<{ status: number; text: string; ms: number }> {
  const started = Date.now()
  const res = await request(`${url}/hooks/payin/default`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-signature": sign(body, key) },
    body,
  })
  const text = await res.body.text()
  return { status: res.statusCode, text, ms: Date.now() - started }
}

appSpec((h, { dbConfig }) => {
  const { api, getContainer } = h
  it("two servers and a worker on Redis: nothing lost, nothing doubled, each part where it belongs", async () => {
    const container = getContainer()
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const seed = await h.seedStore(["pp_payin_default"])
    // shopper notifications switched on from the admin (stored in the database the processes share)
    const switchedOn = await api.post("/admin/payin/settings/default", { notifications: { enabled: true } }, await adminHeaders(container, api))
    expect(switchedOn.data.values.notifications).toMatchObject({ enabled: true, channel: "email" })
    const notifications = container.resolve(Modules.NOTIFICATION) as any
    /** The notifications of these orders, by order: the kinds in their idempotency keys (payin:<kind>:<order_id>). */
    const notifiedKinds = async (orderIds: string[]) => {
      const rows = (await notifications.listNotifications({ resource_id: orderIds }, { take: 1000 })) as any[]
      return Object.fromEntries(
        orderIds.map((id) => [id, rows.filter((n) => n.resource_id === id).map((n) => n.idempotency_key.split(":")[1]).sort()])
      )
    }
    let notificationWaitsMs = 0 // what the notification steps add to the run
    /** Waits until every order got its payment instructions (the worker handles order.placed). */
    const instructed = async (orderIds: string[]) => {
      const started = Date.now()
      await eventually("payin.instructions of every order placed awaiting payment", async () => {
        const kinds = await notifiedKinds(orderIds)
        return orderIds.every((id) => kinds[id].includes("instructions"))
      })
      notificationWaitsMs += Date.now() - started
    }
    // server B and the worker stop before a capture while the pause file exists (step 4)
    const role = (mode: "server" | "worker", pausable = true) => ({
      DATABASE_URL: dbConfig.clientUrl,
      MEDUSA_WORKER_MODE: mode,
      PAYIN_APP_REDIS_URL: redis.url,
      PAYIN_APP_TEST_PLUGINS: probeDir,
      PAYIN_TEST_PAUSE_FILE: pausable ? pauseFile : undefined,
      // the job ticks every 5 s; here it looks up every 10 s, pay-ins of any age (README: plugin options)
      PAYIN_RECONCILE_INTERVAL_SECONDS: "10",
      PAYIN_RECONCILE_AFTER_SECONDS: "0",
    })
    const bootStarted = Date.now()
    let [serverA, serverB, worker] = await Promise.all([
      startMedusa("server A", role("server", false)),
      startMedusa("server B", role("server")),
      startMedusa("worker", role("worker")),
    ])
    console.log(`[topology] two servers and the worker booted in ${Date.now() - bootStarted} ms`)
    const A = serverA.url
    const adminA = httpApi(A)
    const shops = [new Storefront(adminA, seed), new Storefront(httpApi(serverB.url), seed)]
    const rowOf = async (sessionId: string) => (await h.ledger.rows({ session_id: sessionId }))[0]
    const capturesOf = async (sessionIds: string[]) => {
      const { data } = await query.graph({
        entity: "payment",
        fields: ["id", "payment_session_id", "captures.id"],
        filters: { payment_session_id: sessionIds },
      })
      return data as { payment_session_id: string; captures: { id: string }[] }[]
    }
    const allCapturedOnce = async (sessionIds: string[]) => {
      const payments = await capturesOf(sessionIds)
      return payments.length === sessionIds.length && payments.every((p) => p.captures.length === 1)
    }
    const callbackOf = (payinId: string) => JSON.stringify(sandbox.transaction(payinId) as Transaction)
    const placeOrder = async (shop: Storefront) => {
      const cartId = await shop.cart()
      const session = await shop.session(cartId, "pp_payin_default")
      const orderId = (await shop.complete(cartId)).data.order.id as string
      await instructed([orderId]) // before the payment: then the order is paid and gets payin.paid
      return { sessionId: session.id as string, payinId: payinsOfSession(sandbox, session.id)[0].id, orderId }
    }

    try {
      // 1. Checkouts on both servers (one in three pays before completing: the webhook
      //    completes the cart), each callback delivered three times plus a stale "active",
      //    concurrently and shuffled over both servers: one capture each.
      const checkouts: { sessionId: string; payinId: string; orderFirst: boolean; orderId?: string }[] = []
      await pool(Array.from({ length: 12 }), 4, async (_, i) => {
        const shop = shops[i % 2]
        const cartId = await shop.cart()
        const session = await shop.session(cartId, "pp_payin_default")
        const orderFirst = i % 3 !== 0
        const orderId = orderFirst ? ((await shop.complete(cartId)).data.order.id as string) : undefined
        checkouts.push({ sessionId: session.id, payinId: payinsOfSession(sandbox, session.id)[0].id, orderFirst, orderId })
      })
      await instructed(checkouts.flatMap((c) => (c.orderId ? [c.orderId] : [])))
      for (const c of checkouts) await control(sandbox, "POST", `/_sandbox/transactions/${c.payinId}/pay`)
      const deliveries = checkouts.flatMap((c) => {
        const closed = callbackOf(c.payinId)
        return [closed, closed, closed, JSON.stringify({ ...JSON.parse(closed), status: "active" })]
      })
      const answers: number[] = []
      await pool(shuffle(deliveries), 8, async (body, i) => {
        answers.push((await deliver(i % 2 ? serverB.url : A, body, KEY)).status)
      })
      // the servers only store callbacks: every delivery answered 200, the worker books them
      expect(answers.filter((s) => s !== 200)).toEqual([])
      await eventually("every checkout captured", () => allCapturedOnce(checkouts.map((c) => c.sessionId)))
      for (const c of checkouts) {
        const row = await eventually(`ledger of ${c.payinId} done`, async () => {
          const r = await rowOf(c.sessionId)
          return r.effect_pending ? null : r
        })
        expect([c.payinId, row.status, Boolean(row.captured_at), row.effect_pending]).toEqual([c.payinId, "closed", true, null])
      }

      // 2. order.placed is handled on the worker: it links each pay-in to its order.
      for (const c of checkouts.filter((c) => c.orderFirst)) {
        await eventually(`order.placed of ${c.orderId} handled`, async () =>
          handled().some((h) => h.name === "order.placed" && h.id === c.orderId)
        )
        expect((await rowOf(c.sessionId)).order_id).toBe(c.orderId)
      }

      // 3. Webhooks that never came: the worker's reconciliation job looks the pay-ins up
      //    and completes the orders (servers run no jobs).
      const silent = await Promise.all([placeOrder(shops[0]), placeOrder(shops[1])])
      for (const s of silent) await control(sandbox, "POST", `/_sandbox/transactions/${s.payinId}/pay`)
      await eventually("silent payments captured by the worker", () => allCapturedOnce(silent.map((s) => s.sessionId)))
      for (const s of silent) {
        const { data: history } = await query.graph({
          entity: "payin_status_change",
          fields: ["to_status", "source"],
          filters: { transaction_id: (await rowOf(s.sessionId)).id, to_status: "closed" },
        })
        expect(history).toEqual([expect.objectContaining({ source: "lookup" })])
      }

      // The admin (on a server) sees the worker's runs of the job.
      const health = await adminA.get("/admin/payin/webhook-health", await adminHeaders(container, api))
      expect(health.data.reconciliation).toMatchObject({ overdue: false, interval_seconds: 10, runs: expect.any(Number) })
      expect(health.data.reconciliation.runs).toBeGreaterThan(0)

      // 4. SIGKILL between "ledger recorded closed" and "Medusa captured": the worker pauses
      //    while reconciling two silent payments and booking two webhooks server B stored.
      writeFileSync(pauseFile, "")
      const byWorker = await Promise.all([placeOrder(shops[0]), placeOrder(shops[0])])
      const byServer = await Promise.all([placeOrder(shops[1]), placeOrder(shops[1])])
      const killed = [...byWorker, ...byServer]
      for (const k of killed) await control(sandbox, "POST", `/_sandbox/transactions/${k.payinId}/pay`)
      const inFlight = byServer.map((k) => deliver(serverB.url, callbackOf(k.payinId), KEY).catch(() => null))
      const ledgerIds = await Promise.all(killed.map(async (k) => (await rowOf(k.sessionId)).id as string))
      await eventually(
        "every pay-in paused between ledger and capture",
        async () => ledgerIds.every((id) => (worker.log() + serverB.log()).includes(PAUSED + id)),
        120_000
      )
      const killedAt = Date.now()
      await Promise.all([worker.kill(), serverB.kill()])
      await Promise.all(inFlight)
      for (const k of killed) {
        const row = await rowOf(k.sessionId)
        expect([row.status, row.effect_pending, row.captured_at]).toEqual(["closed", "capture", null])
      }
      expect((await capturesOf(killed.map((k) => k.sessionId))).filter((p) => p.captures.length)).toEqual([])
      // what the dead worker costs a webhook meanwhile (a retry of one of them, to server A):
      // nothing, it is stored (the same entry) and answered at once; booked after the restart
      const waiting = await deliver(A, callbackOf(byServer[0].payinId), KEY)
      expect([waiting.status, JSON.parse(waiting.text)]).toEqual([200, { received: true, id: expect.stringMatching(/^payinwh_/) }])
      rmSync(pauseFile)
      ;[serverB, worker] = await Promise.all([startMedusa("server B", role("server")), startMedusa("worker", role("worker"))])
      const restartedMs = Date.now() - killedAt
      await eventually("the killed pay-ins captured after the restart", () => allCapturedOnce(killed.map((k) => k.sessionId)), 180_000)
      console.log(
        `[topology] SIGKILL → every order captured: ${((Date.now() - killedAt) / 1000).toFixed(1)} s ` +
          `(restart of worker + server B took ${(restartedMs / 1000).toFixed(1)} s; a webhook for a pay-in whose lock the dead ` +
          `process held was answered ${waiting.status} after ${waiting.ms} ms)`
      )
      for (const k of killed) {
        // the ledger records the capture right after Medusa's commit
        const row = await eventually(`ledger of ${k.payinId} done`, async () => {
          const r = await rowOf(k.sessionId)
          return r.effect_pending ? null : r
        })
        expect([row.status, row.effect_pending, Boolean(row.captured_at), row.order_id]).toEqual(["closed", null, true, k.orderId])
      }

      // 5. A key rotated from the admin on server A: server B creates pay-ins and accepts
      //    callbacks with it at once, the worker looks pay-ins up with it.
      const shopB = new Storefront(httpApi(serverB.url), seed) // the restarted server B
      await shopB.session(await shopB.cart(), "pp_payin_default") // B holds a fresh copy of the old settings
      sandbox.updateMerchant({ apiKey: ROTATED })
      const saved = await adminA.post("/admin/payin/settings/default", { apiKey: ROTATED }, await adminHeaders(container, api))
      expect(saved.data.api_key.source).toBe("admin")
      const rotatedB = await placeOrder(shopB)
      expect(sandbox.transaction(rotatedB.payinId)?.status).toBe("active")
      await control(sandbox, "POST", `/_sandbox/transactions/${rotatedB.payinId}/pay`)
      const hook = await deliver(serverB.url, callbackOf(rotatedB.payinId), ROTATED)
      expect([hook.status, JSON.parse(hook.text)]).toEqual([200, { received: true, id: expect.stringMatching(/^payinwh_/) }])
      const rotatedSilent = await placeOrder(shops[0])
      await control(sandbox, "POST", `/_sandbox/transactions/${rotatedSilent.payinId}/pay`)
      await eventually("paid after the rotation, captured (B by webhook, the worker by lookup)", () =>
        allCapturedOnce([rotatedB.sessionId, rotatedSilent.sessionId])
      )

      // 6. The plugin's events are handled on the worker: a paid pay-in disputed.
      const disputed = checkouts[1]
      await control(sandbox, "POST", `/_sandbox/transactions/${disputed.payinId}/dispute`)
      expect((await deliver(A, callbackOf(disputed.payinId), ROTATED)).status).toBe(200)
      const disputedId = (await rowOf(disputed.sessionId)).id
      await eventually("payin.dispute_opened handled", async () =>
        handled().some((h) => h.name === PAYIN_EVENTS.DISPUTE_OPENED && h.id === disputedId)
      )

      // Every event of the run was handled by a worker process, never by a server.
      expect([...new Set(handled().map((h) => h.mode))]).toEqual(["worker"])

      // 7. Shopper notifications: every order got exactly one payin.paid, and one
      //    payin.instructions when it was placed awaiting its payment (not when paid first), in
      //    spite of the repeated callbacks, two servers and a worker killed and restarted; only
      //    the worker sent them.
      const notificationsChecked = Date.now()
      for (const c of checkouts) c.orderId ??= (await rowOf(c.sessionId)).order_id
      const placedAwaiting = [...checkouts.filter((c) => c.orderFirst), ...silent, ...killed, rotatedB, rotatedSilent].map((c) => c.orderId!)
      const paidFirst = checkouts.filter((c) => !c.orderFirst).map((c) => c.orderId!)
      const expected = Object.fromEntries([
        ...placedAwaiting.map((id) => [id, ["instructions", "paid"]]),
        ...paidFirst.map((id) => [id, ["paid"]]),
      ])
      await eventually("payin.paid of every order", async () => {
        const kinds = await notifiedKinds(Object.keys(expected))
        return Object.values(kinds).every((k) => k.includes("paid"))
      })
      expect(await notifiedKinds(Object.keys(expected))).toEqual(expected)
      expect(worker.log()).toContain("payin: notification payin.paid (paid) for order")
      for (const server of [serverA, serverB]) expect(server.log()).not.toContain("payin: notification")
      notificationWaitsMs += Date.now() - notificationsChecked
      console.log(
        `[topology] notifications: ${Object.keys(expected).length} orders, ${placedAwaiting.length + Object.keys(expected).length} notifications, ` +
          `waits and checks added ${(notificationWaitsMs / 1000).toFixed(1)} s`
      )

      // 8. Pay again across the processes: switched on from the admin on server A; the expiries
      //    delivered to A; new details asked on both servers at once give one pay-in, paid →
      //    captured once; a second order whose grace period ends unpaid is canceled by the worker.
      await adminA.post("/admin/payin/settings/default", { payAgain: { enabled: true, graceHours: 1 } }, await adminHeaders(container, api))
      // the worker books the expiries below: it reads settings at most 5 s old (README: what runs where)
      await new Promise((r) => setTimeout(r, 6_000))
      const servers = [shops[0], shopB] // server A, and server B as restarted in step 4
      const again = await placeOrder(servers[0])
      const lapsed = await placeOrder(servers[1])
      for (const o of [again, lapsed]) {
        await control(sandbox, "POST", `/_sandbox/transactions/${o.payinId}/expire`)
        expect((await deliver(A, callbackOf(o.payinId), ROTATED)).status).toBe(200)
        // booked by the worker
        const ended = await eventually(`the expiry of ${o.payinId} booked`, async () => {
          const r = await rowOf(o.sessionId)
          return r.status === "canceled" && r.pay_again_until ? r : null
        })
        expect(ended).toMatchObject({ effect_pending: "cancel_order" })
      }
      await eventually("server B offers pay again (its settings reloaded)", async () => (await servers[1].orderStatus(again.orderId)).pay_again)
      const asked = await Promise.all(servers.map((shop) => shop.payAgain({ order_id: again.orderId })))
      expect(asked.map((a) => a.status)).toEqual([200, 200])
      expect(new Set(asked.map((a) => a.data.payin.payin_id)).size).toBe(1)
      const againRows = await h.ledger.rows({ order_id: again.orderId })
      expect(againRows).toHaveLength(2)
      const fresh = againRows.find((r: any) => r.session_id !== again.sessionId)
      await control(sandbox, "POST", `/_sandbox/transactions/${fresh.service_id}/pay`)
      expect((await deliver(serverB.url, callbackOf(fresh.service_id), ROTATED)).status).toBe(200)
      await eventually("the new details' payment captured once", () => allCapturedOnce([fresh.session_id]))
      const statusOf = async (orderId: string) => (await query.graph({ entity: "order", fields: ["status"], filters: { id: orderId } })).data[0].status
      await h.sql(
        `update payin_transaction set pay_again_until = now() - interval '1 second', next_effect_at = now() - interval '1 second'
         where order_id = any(?::text[]) and effect_pending is not null`,
        [[again.orderId, lapsed.orderId]]
      )
      await eventually("the worker canceled the order whose grace period ended unpaid", async () => (await statusOf(lapsed.orderId)) === "canceled")
      await eventually("the paid order's first pay-in settled by the worker", async () => !(await rowOf(again.sessionId)).effect_pending)
      expect(await statusOf(again.orderId)).not.toBe("canceled")
      expect((await capturesOf([again.sessionId, lapsed.sessionId])).flatMap((p) => p.captures)).toEqual([])

      // 9. A burst of callbacks over both servers while the worker that books them is SIGKILLed
      //    halfway and restarted: every delivery answered 200 the first time (the servers only
      //    store them), every order captured exactly once, every inbox entry applied.
      const burst: { sessionId: string; payinId: string }[] = []
      await pool(Array.from({ length: BURST }), 4, async (_, i) => {
        const shop = [shops[0], shopB][i % 2] // server A, and server B as restarted in step 4
        const cartId = await shop.cart()
        const session = await shop.session(cartId, "pp_payin_default")
        await shop.complete(cartId)
        burst.push({ sessionId: session.id, payinId: payinsOfSession(sandbox, session.id)[0].id })
      })
      for (const b of burst) await control(sandbox, "POST", `/_sandbox/transactions/${b.payinId}/pay`)
      const burstAnswers: number[] = []
      const sendBurst = (part: typeof burst) =>
        pool(part, 16, async (b, i) => void burstAnswers.push((await deliver(i % 2 ? serverB.url : A, callbackOf(b.payinId), ROTATED)).status))
      await sendBurst(burst.slice(0, BURST / 2))
      await worker.kill() // bookings under way die with it
      const burstKilledAt = Date.now()
      await sendBurst(burst.slice(BURST / 2))
      expect(burstAnswers.filter((s) => s !== 200)).toEqual([])
      worker = await startMedusa("worker", role("worker"))
      await eventually("the burst captured after the worker's restart", () => allCapturedOnce(burst.map((b) => b.sessionId)), 180_000)
      // an entry the dead worker booked but had not settled is taken again once its lease (30 s) passed: a no-op, then applied
      await eventually(
        "every burst entry applied",
        async () => (await h.ledger.inbox.events({ service_id: burst.map((b) => b.payinId) })).every((e: any) => e.state === "applied"),
        120_000,
        500
      )
      expect(await allCapturedOnce(burst.map((b) => b.sessionId))).toBe(true)
      console.log(`[topology] burst of ${BURST}, the worker SIGKILLed halfway: every order captured once ${((Date.now() - burstKilledAt) / 1000).toFixed(1)} s after the kill`)

      // Nothing doubled over the whole run: one capture per paid session, statuses never went back.
      const everySession = [...checkouts, ...silent, ...killed, rotatedB, rotatedSilent, ...burst].map((c) => c.sessionId).concat(fresh.session_id)
      expect(await allCapturedOnce(everySession)).toBe(true)
      const { data: back } = await query.graph({
        entity: "payin_status_change",
        fields: ["to_status", "from_status"],
        filters: { to_status: "active" },
      })
      expect((back as any[]).filter((h) => h.from_status !== "creating")).toEqual([])
    } catch (error) {
      // a process that died or refused a connection says why in its own output
      for (const p of [serverA, serverB, worker]) {
        console.log(`[topology] ${p.name} (exit ${p.child.exitCode ?? p.child.signalCode ?? "none"}), its last output:\n${p.log().slice(-3000)}`)
      }
      throw error
    } finally {
      await Promise.all([serverA.kill(), serverB.kill(), worker.kill()])
    }
  })
})
