// `npm run bench` (webhook booking part): the production topology — Redis, one `server` and one
// `worker` process of the test app (`medusa start`) on one PostgreSQL, the sandbox as the service
// — and this jest process's own Medusa (server mode: it seeds, reads, and runs the bare bookings).
//   (a) the answer to every webhook kind — forged, duplicate, a new status of a ledger-only pay-in,
//       `closed` of a placed order (captured on the worker) — against a POST of the same bodies to
//       Medusa's own POST /hooks/payment/system_default on the same server, the worker stopped
//       while timed (it books between phases): requests per second, BENCH_ROUNDS_BOOKING
//       alternating rounds (median) after one warm-up round that is dropped;
//   (b) a burst: BENCH_BURST `closed` webhooks of placed orders at 64 in flight: every answer's
//       status, p50/p99 against the same bodies POSTed to Medusa's route at 64 in flight, and the
//       time until the worker captured the last order (each exactly once, for its total);
//   (c) the booking itself, bare in this process, `BOOKING_IN_FLIGHT` at once: the plugin's
//       applyPayinEvent of a `closed` pay-in of a placed order against Medusa's own
//       processPaymentWorkflow (action captured) for the same kind of deferred pay-in session
//       (recorded paid in the ledger by SQL, no booking: Medusa authorizes, the provider answers
//       `captured`, Medusa writes the order transaction), for an authorized pp_system_default
//       Payment (a capture only), and against POST /admin/payments/:id/capture, alternating rounds;
//   (d) SQL statements per booking, Medusa's and the plugin's apart (statements.ts).
// Prints and records; asserts only correctness (answers, captures exactly once).
import { writeFileSync } from "fs"
import path from "path"
import { performance } from "perf_hooks"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { generateEntityId, PaymentActions } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { processPaymentWorkflow } from "@medusajs/medusa/core-flows"
import { PayinClient } from "../../src/client/client"
import { sign } from "../../src/client/signature"
import type { RunningSandbox } from "../../src/sandbox"
import { applyPayinEvent } from "../../src/money-path/apply"
import { PAYIN_MODULE } from "../../medusa-plugin.config"
import { seedDemoStore } from "../app/seed/demo-store"
import { TEST_ADMIN, adminHeaders } from "../support/admin"
import { envForFile } from "../support/env"
import { MedusaProcess, eventually, startMedusa } from "../support/medusa-process"
import { RunningRedis, startRedis } from "../support/redis"
import { sandboxForApp } from "../support/sandbox"
import { Storefront, httpApi } from "../support/storefront"
import { PayinOrder, SystemOrder, preparePayinOrders, prepareSystemOrders } from "./orders"
import { Batch, BenchRequest, batch } from "./rate"
import { recordLines } from "./record"
import { SMOKE, benchSetting } from "./smoke"
import { countStatements } from "./statements"
import { alternating, median, medianOf } from "./stats"

jest.setTimeout(3_600_000)

const KEY = "bench-booking-key-0123456789"
const ROUNDS = Math.max(SMOKE ? 1 : 3, benchSetting("BENCH_ROUNDS_BOOKING", 5, 1))
/** Requests per round in (a): `closed` of placed orders (each order prepared by a checkout), and of each other kind (cheap to prepare: more, for a steadier rate). */
const PER_KIND = benchSetting("BENCH_PER_KIND", 60, 3)
const PER_CHEAP_KIND = PER_KIND * 5
const CONNECTIONS = SMOKE ? 2 : 16
const BURST = benchSetting("BENCH_BURST", 2000, 8)
const BURST_IN_FLIGHT = SMOKE ? 4 : 64
/** Bookings per round and side in (c). */
const BOOKINGS = benchSetting("BENCH_BOOKINGS", 40, 3)
const BOOKING_IN_FLIGHT = benchSetting("BENCH_BOOKING_IN_FLIGHT", 8, 2)

let sandbox: RunningSandbox
let redis: RunningRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})
// this process's app: seeds and reads; no jobs, and no webhook is ever posted to it
envForFile({ MEDUSA_WORKER_MODE: "server" })
sandboxForApp(KEY, { requisitesPerMethod: 1000, webhookUrl: null }, (s) => (sandbox = s))

type Captures = { payments: number; captures: number; wrong: string[] }

/** Per session: one Payment, one capture, for the Payment's whole amount. */
async function capturesOf(knex: any, sessionIds: string[]): Promise<Captures> {
  const { rows } = await knex.raw(
    `select p.payment_session_id, p.amount::numeric as amount, count(c.id)::int as captures, coalesce(sum(c.amount::numeric), 0) as captured
     from payment p left join capture c on c.payment_id = p.id and c.deleted_at is null
     where p.payment_session_id = any(?) and p.deleted_at is null group by p.id`,
    [sessionIds]
  )
  const wrong = rows
    .filter((r: any) => r.captures !== 1 || Number(r.captured) !== Number(r.amount))
    .map((r: any) => `${r.payment_session_id}: ${r.captures} captures, ${r.captured} of ${r.amount}`)
  return { payments: rows.length, captures: rows.reduce((n: number, r: any) => n + r.captures, 0), wrong }
}

async function allCaptured(knex: any, orders: { sessionId: string }[], what: string, timeoutMs = 600_000): Promise<number> {
  const ids = orders.map((o) => o.sessionId)
  await eventually(
    `${what}: every order captured`,
    async () => {
      const { rows } = await knex.raw(
        `select count(*)::int as n from payment where payment_session_id = any(?) and captured_at is not null and deleted_at is null`,
        [ids]
      )
      return rows[0].n >= ids.length
    },
    timeoutMs,
    50
  )
  const done = performance.now()
  const captures = await capturesOf(knex, ids)
  if (captures.payments !== ids.length || captures.wrong.length) {
    throw new Error(`${what}: ${captures.payments} payments for ${ids.length} orders; not captured exactly once: ${captures.wrong.slice(0, 5).join("; ")}`)
  }
  return done
}

const ok = (result: Batch, status: number, what: string) => {
  if (result.statuses[status] !== result.count) throw new Error(`${what}: answers ${JSON.stringify(result.statuses)}, e.g. ${result.bodies[0]}`)
  return result
}

medusaIntegrationTestRunner({
  inApp: true,
  cwd: path.join(__dirname, "..", "app"),
  testSuite: ({ api, getContainer, dbConfig }) => {
    let server: MedusaProcess, worker: MedusaProcess
    afterAll(async () => {
      await Promise.all([server?.kill(), worker?.kill()])
    })

    it("measures where and how fast a webhook is answered and booked", async () => {
      const container = getContainer()
      const knex = container.resolve("__pg_connection__") as any
      const lines: string[] = []
      const seed = await seedDemoStore(container, {
        providerIds: ["pp_payin_default", "pp_system_default"],
        adminEmail: TEST_ADMIN.email,
        adminPassword: TEST_ADMIN.password,
      })
      const role = (mode: "server" | "worker") => ({ DATABASE_URL: dbConfig.clientUrl, MEDUSA_WORKER_MODE: mode, PAYIN_APP_REDIS_URL: redis.url })
      ;[server, worker] = await Promise.all([startMedusa("server", role("server")), startMedusa("worker", role("worker"))])
      const shop = new Storefront(httpApi(server.url), seed)
      const ctx = { container, shop, sandbox, key: KEY }
      const signed = (body: string, key = KEY): BenchRequest => ({
        method: "POST",
        path: "/hooks/payin/default",
        headers: { "content-type": "application/json", "x-signature": sign(body, key) },
        body,
      })
      /** The same request to Medusa's own payment webhook route: an event emitted, 200 before any check. */
      const medusaRoute = (req: BenchRequest): BenchRequest => ({ ...req, path: "/hooks/payment/system_default" })
      const client = new PayinClient({ baseUrl: sandbox.url, apiKey: KEY })
      /** Ledger-only pay-ins (no session, no order) the service knows, each reported canceled once. */
      const canceledBodies = async (n: number, tag: string): Promise<string[]> => {
        const txs = await Promise.all(
          Array.from({ length: n }, (_, k) => client.createPayInOnce({ fiatAmount: 100 + k, fiatCurrency: "RUB", extra: { externalTransactionId: `${tag}-${k}` } }))
        )
        await knex("payin_transaction").insert(
          txs.map((tx) => ({
            id: generateEntityId(undefined, "payintx"),
            provider_id: "pp_payin_default",
            session_id: tx.extra.externalTransactionId,
            service_id: tx.id,
            status: "active",
            amount: tx.fiatAmount,
            raw_amount: JSON.stringify({ value: tx.fiatAmount, precision: 20 }),
            currency_code: "rub",
            fiat_amount: tx.fiatAmount,
          }))
        )
        return txs.map((tx) => JSON.stringify({ ...sandbox.transaction(tx.id)!, status: "canceled" }))
      }

      // ------------------------------------------------------------------------------------------
      // (a) every kind answered, against the same bodies POSTed to Medusa's own route
      // ------------------------------------------------------------------------------------------
      const [dupOrder] = await preparePayinOrders(ctx, 1)
      ok(await batch(server.url, 1, [dupOrder.webhook]), 200, "first delivery")
      await allCaptured(knex, [dupOrder], "the duplicate's order")
      const forged = signed(dupOrder.webhook.body!, "not-the-merchant-key")
      type Kind = "forged" | "duplicate" | "newStatus" | "captures"
      const kinds: Kind[] = ["forged", "duplicate", "newStatus", "captures"]
      const expected: Record<Kind, number> = { forged: 401, duplicate: 200, newStatus: 200, captures: 200 }
      let round: Record<Kind, BenchRequest[]> | null = null
      let roundOrders: PayinOrder[] = []
      const phases = {} as Record<`${Kind}` | `${Kind}Medusa`, () => Promise<Batch>>
      // The worker is stopped (SIGSTOP) through each timed round, so both routes get the same share of the
      // 2 cores (in production it runs on its own machine); between rounds it books what the round stored
      // and runs Medusa's delayed webhook events, so no round is timed beside the previous one's work.
      const answering = (requests: BenchRequest[], status: number, what: string) => batch(server.url, CONNECTIONS, requests).then((b) => ok(b, status, what))
      const inboxDrained = () =>
        eventually("the inbox applied", async () => (await knex.raw(`select count(*)::int as n from payin_webhook_event where state = 'received'`)).rows[0].n === 0, 600_000, 50)
      for (const kind of kinds) {
        phases[kind] = () => answering(round![kind], expected[kind], kind)
        phases[`${kind}Medusa`] = () => answering(round![kind].map(medusaRoute), 200, `${kind} to Medusa's route`)
      }
      let preparedMs = 0
      // one more round than reported: the first warms both routes (and PostgreSQL's new tables) and is dropped
      const timed = await alternating(ROUNDS + 1, phases, async (r) => {
        // the previous round's bookings finish before this round is timed
        worker.child.kill("SIGCONT")
        if (roundOrders.length) await allCaptured(knex, roundOrders, `round ${r - 1}`)
        const started = performance.now()
        roundOrders = await preparePayinOrders(ctx, PER_KIND)
        const newStatus = (await canceledBodies(PER_CHEAP_KIND, `bench-booking-${r}`)).map((b) => signed(b))
        round = {
          forged: Array(PER_CHEAP_KIND).fill(forged),
          duplicate: Array(PER_CHEAP_KIND).fill(dupOrder.webhook),
          newStatus,
          captures: roundOrders.map((o) => o.webhook),
        }
        preparedMs += performance.now() - started
        await inboxDrained()
        worker.child.kill("SIGSTOP")
      })
      worker.child.kill("SIGCONT")
      await allCaptured(knex, roundOrders, "the last round")
      const answers = Object.fromEntries(Object.entries(timed).map(([k, v]) => [k, (v as Batch[]).slice(1)])) as typeof timed
      for (const kind of kinds) {
        const ratio = answers[kind].map((b, k) => b.rps / answers[`${kind}Medusa`][k].rps)
        lines.push(
          `(a) webhook ${kind} answered / the same bodies POSTed to Medusa's /hooks/payment (server process, the worker stopped while timed, ${CONNECTIONS} in flight, ${kind === "captures" ? PER_KIND : PER_CHEAP_KIND} per run, after a warm-up round): ` +
            `${medianOf(ratio)} (target >= 0.9); ${median(answers[kind].map((b) => b.rps)).toFixed(0)} vs ${median(answers[`${kind}Medusa`].map((b) => b.rps)).toFixed(0)} req/s, ` +
            `p50 ${median(answers[kind].map((b) => b.p50)).toFixed(1)} vs ${median(answers[`${kind}Medusa`].map((b) => b.p50)).toFixed(1)} ms`
        )
      }

      // ------------------------------------------------------------------------------------------
      // (b) a burst of `closed` webhooks at 64 in flight; the worker books them
      // ------------------------------------------------------------------------------------------
      let started = performance.now()
      const burstOrders = await preparePayinOrders(ctx, BURST, 4)
      preparedMs += performance.now() - started
      const sent = performance.now()
      const burst = ok(await batch(server.url, BURST_IN_FLIGHT, burstOrders.map((o) => o.webhook)), 200, "the burst")
      const drained = await allCaptured(knex, burstOrders, "the burst")
      const drainS = (drained - sent) / 1000
      // the same bodies, the same concurrency, to Medusa's own route (after the burst drained: nothing else runs)
      const baseline = ok(await batch(server.url, BURST_IN_FLIGHT, burstOrders.map((o) => medusaRoute(o.webhook))), 200, "the burst to Medusa's route")
      lines.push(
        `(b) burst of ${BURST} closed webhooks, ${BURST_IN_FLIGHT} in flight: every one answered 200 the first time (${JSON.stringify(burst.statuses)}); ` +
          `answer p50 ${burst.p50.toFixed(0)} ms, p99 ${burst.p99.toFixed(0)} ms; the same bodies to Medusa's route: p50 ${baseline.p50.toFixed(0)} ms, p99 ${baseline.p99.toFixed(0)} ms; ` +
          `p99 ratio ${(burst.p99 / baseline.p99).toFixed(2)} (target <= 2); all answered in ${(burst.ms / 1000).toFixed(1)} s, ` +
          `the last order captured ${drainS.toFixed(1)} s after the first send (${(BURST / drainS).toFixed(1)} bookings/s on the worker), each exactly once`
      )

      // ------------------------------------------------------------------------------------------
      // (c) the booking, bare in this process: the plugin's vs Medusa's processPaymentWorkflow vs the admin capture
      // ------------------------------------------------------------------------------------------
      const admin = await adminHeaders(container, api)
      const closedOf = (o: PayinOrder) => JSON.parse(o.webhook.body!)
      const inFlight = async <T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<number> => {
        let next = 0
        const t0 = performance.now()
        await Promise.all(
          Array.from({ length: Math.min(BOOKING_IN_FLIGHT, items.length) }, async () => {
            while (next < items.length) await fn(items[next++])
          })
        )
        return items.length / ((performance.now() - t0) / 1000)
      }
      const amountOf = async (sessionIds: string[]) => {
        const { rows } = await knex.raw(`select payment_session_id, amount::text as amount from payment where payment_session_id = any(?)`, [sessionIds])
        return new Map<string, string>(rows.map((r: any) => [r.payment_session_id, r.amount]))
      }
      /** The pay-ins recorded paid straight in the ledger (no booking): the provider answers `captured` from it. */
      const paidInLedger = async (orders: PayinOrder[]) => {
        const sessions = orders.map((o) => o.sessionId)
        await knex.raw(`update payin_transaction set status = 'closed', paid_at = now() where session_id = any(?)`, [sessions])
        const { rows } = await knex.raw(`select id, amount::text as amount from payment_session where id = any(?)`, [sessions])
        return new Map<string, string>(rows.map((r: any) => [r.id, r.amount]))
      }
      /** Medusa's processPaymentWorkflow (captured) for each order's session, BOOKING_IN_FLIGHT at once; each then captured once. */
      const processPaymentRun = async (orders: { sessionId: string }[], amounts: Map<string, string>, what: string) => {
        const rps = await inFlight(orders, (o) =>
          processPaymentWorkflow(container).run({ input: { action: PaymentActions.SUCCESSFUL, data: { session_id: o.sessionId, amount: amounts.get(o.sessionId)! } } })
        )
        await allCaptured(knex, orders, what, 10_000)
        return rps
      }
      let bare: {
        plugin: PayinOrder[]
        deferred: PayinOrder[]
        workflow: SystemOrder[]
        admin: SystemOrder[]
        amounts: Map<string, string>
        deferredAmounts: Map<string, string>
      } | null = null
      const booking = await alternating(
        ROUNDS,
        {
          plugin: async () => {
            const rps = await inFlight(bare!.plugin, (o) => applyPayinEvent(container, { instanceId: "default", transaction: closedOf(o), source: "webhook" }))
            await allCaptured(knex, bare!.plugin, "bare plugin booking", 10_000)
            return rps
          },
          processDeferred: () => processPaymentRun(bare!.deferred, bare!.deferredAmounts, "processPaymentWorkflow of the deferred pay-in sessions"),
          processPayment: () => processPaymentRun(bare!.workflow, bare!.amounts, "processPaymentWorkflow"),
          adminCapture: async () => {
            const result = await batch(
              server.url,
              BOOKING_IN_FLIGHT,
              bare!.admin.map((o) => ({
                method: "POST" as const,
                path: `/admin/payments/${o.paymentId}/capture`,
                headers: { ...admin.headers, "content-type": "application/json" },
                body: "{}",
              }))
            )
            ok(result, 200, "admin capture")
            await allCaptured(knex, bare!.admin, "admin capture", 10_000)
            return result.rps
          },
        },
        async () => {
          const t0 = performance.now()
          const workflow = await prepareSystemOrders(ctx, BOOKINGS)
          const deferred = await preparePayinOrders(ctx, BOOKINGS)
          bare = {
            plugin: await preparePayinOrders(ctx, BOOKINGS),
            deferred,
            workflow,
            admin: await prepareSystemOrders(ctx, BOOKINGS),
            amounts: await amountOf(workflow.map((o) => o.sessionId)),
            deferredAmounts: await paidInLedger(deferred),
          }
          preparedMs += performance.now() - t0
        }
      )
      const toDeferred = booking.plugin.map((r, k) => r / booking.processDeferred[k])
      const toWorkflow = booking.plugin.map((r, k) => r / booking.processPayment[k])
      const toAdmin = booking.plugin.map((r, k) => r / booking.adminCapture[k])
      const perS = (runs: number[]) => `${median(runs).toFixed(1)}/s`
      lines.push(
        `(c) booking a paid placed order, bare in one process, ${BOOKING_IN_FLIGHT} in flight, ${BOOKINGS} per run: the plugin's applyPayinEvent (closed → ledger, authorize for the order, captured) / ` +
          `Medusa's processPaymentWorkflow (captured) for the same deferred pay-in session, recorded paid in the ledger (no Payment yet: authorize, capture, order transaction): ${medianOf(toDeferred)} (target >= 0.87); ` +
          `/ processPaymentWorkflow (captured) of an authorized pp_system_default Payment (a capture only): ${medianOf(toWorkflow)}; / POST /admin/payments/:id/capture: ${medianOf(toAdmin)}; ` +
          `${perS(booking.plugin)} vs ${perS(booking.processDeferred)} vs ${perS(booking.processPayment)} vs ${perS(booking.adminCapture)}`
      )

      // ------------------------------------------------------------------------------------------
      // (d) statements per booking, one at a time with nothing else running in this process
      // ------------------------------------------------------------------------------------------
      const [onePlugin] = await preparePayinOrders(ctx, 1)
      const [oneSystem] = await prepareSystemOrders(ctx, 1)
      const oneAmount = (await amountOf([oneSystem.sessionId])).get(oneSystem.sessionId)!
      const payinModule = container.resolve(PAYIN_MODULE) as any
      // the inbox's part, on a callback of another pay-in (the worker's job may claim it first: the statements are the same)
      const [other] = await canceledBodies(1, "bench-count")
      const inbox = await countStatements(container, async () => {
        const stored = await payinModule.inbox.receive("pp_payin_default", JSON.parse(other), other)
        const claimed = await payinModule.inbox.claim(1, 30)
        await payinModule.inbox.settle(stored.id, { ok: true, result: null })
        return { stored, claimed }
      })
      const plugin = await countStatements(container, () => applyPayinEvent(container, { instanceId: "default", transaction: closedOf(onePlugin), source: "webhook" }))
      await allCaptured(knex, [onePlugin], "the counted booking", 10_000)
      const medusa = await countStatements(container, () =>
        processPaymentWorkflow(container).run({ input: { action: PaymentActions.SUCCESSFUL, data: { session_id: oneSystem.sessionId, amount: oneAmount } } })
      )
      await allCaptured(knex, [oneSystem], "the counted processPaymentWorkflow", 10_000)
      const [oneDeferred] = await preparePayinOrders(ctx, 1)
      const deferredAmount = (await paidInLedger([oneDeferred])).get(oneDeferred.sessionId)!
      const deferred = await countStatements(container, () =>
        processPaymentWorkflow(container).run({ input: { action: PaymentActions.SUCCESSFUL, data: { session_id: oneDeferred.sessionId, amount: deferredAmount } } })
      )
      await allCaptured(knex, [oneDeferred], "the counted processPaymentWorkflow of a deferred pay-in session", 10_000)
      lines.push(
        `(d) SQL statements per booking (locking-postgres): the plugin's booking of a closed webhook ${plugin.plugin + plugin.medusa} ` +
          `(Medusa's ${plugin.medusa}, the plugin's own ${plugin.plugin} + the inbox's ${inbox.plugin} (store, claim, settle) = ${plugin.plugin + inbox.plugin}, target <= 12); ` +
          `Medusa's processPaymentWorkflow for the same deferred pay-in session ${deferred.plugin + deferred.medusa} (the provider's answer from the ledger ${deferred.plugin} of them), ` +
          `for an authorized pp_system_default Payment ${medusa.plugin + medusa.medusa}`
      )
      if (process.env.BENCH_STATEMENTS_FILE) {
        writeFileSync(process.env.BENCH_STATEMENTS_FILE, [...plugin.statements, ...deferred.statements, ...medusa.statements].map((st) => `${st.owner}\t${st.sql.replace(/\s+/g, " ")}`).join("\n"))
      }
      lines.push(`  the plugin's own statements: ${plugin.statements.filter((st) => st.owner === "plugin").map((st) => st.sql.replace(/\s+/g, " ").slice(0, 60)).join(" | ")}`)
      lines.push(`  (orders prepared in ${(preparedMs / 1000).toFixed(0)} s, untimed)`)

      recordLines(lines)
      console.log(["", "webhook booking benchmark (server + worker on Redis)", ...lines, ""].join("\n"))
      expect(burst.statuses[200]).toBe(BURST)
    })
  },
})
