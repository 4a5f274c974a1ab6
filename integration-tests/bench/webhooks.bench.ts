// `npm run bench` (webhook part), on a running store (real Medusa + PostgreSQL + the sandbox).
// Every ratio is the median of BENCH_ROUNDS (≥ 3) runs measured alternately in this process
// (A,B,… then …,B,A), the individual runs printed too:
//   - webhook requests per second against the trivial GET on the same URL (and GET /health):
//     forged (bad signature), duplicate, a new status change of a ledger-only pay-in (→ canceled);
//   - a new status change closed → capture of real placed orders, with the service answering at
//     once and with every service request 50 ms late (the webhook must not call the service);
//   - the same captures against Medusa's own POST /admin/payments/:id/capture (pp_system_default);
//   - the lookups the service receives while webhooks are delivered (must be 0);
//   - reconciliation of BENCH_PENDING pending pay-ins against the sandbox: time and memory growth;
//   - the apply path's work as a plain async function vs as a Medusa workflow (cost per webhook);
//   - the plugin's OpenTelemetry spans and metrics: registered (an SDK tracer provider with a batch
//     span processor and a no-op exporter, a meter provider) vs not registered, closed → capture
//     and duplicate webhooks, rounds alternating in this process.
// Prints; asserts only correctness (every answer as expected, every order captured, 0 lookups).
import path from "path"
import { performance } from "perf_hooks"
import { setFlagsFromString } from "v8"
import { runInNewContext } from "vm"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { generateEntityId } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../../medusa-plugin.config"
import { PayinClient } from "../../src/client/client"
import { sign } from "../../src/client/signature"
import type { RunningSandbox } from "../../src/sandbox"
import { reconcilePayins } from "../../src/money-path/reconcile"
import { applyWebhookInbox } from "../../src/money-path/inbox"
import { seedDemoStore } from "../app/seed/demo-store"
import { TEST_ADMIN, adminHeaders } from "../support/admin"
import { sandboxForApp } from "../support/sandbox"
import { Storefront } from "../support/storefront"
import { PayinOrder, SystemOrder, preparePayinOrders, prepareSystemOrders, uncaptured } from "./orders"
import { Batch, BenchRequest, Rate, batch, rate } from "./rate"
import { recordLines } from "./record"
import { SMOKE, benchSetting } from "./smoke"
import { countServiceCalls } from "./service-calls"
import { alternating, median, medianOf } from "./stats"
import { applyPlain, applyWorkflow, noopWorkflow } from "./workflow-cost"
import { switchableOtel } from "./otel"
import { SPANS, capturedSince, countStatusChanges, traceEffect, traceWebhook, traced } from "../../src/telemetry"

jest.setTimeout(900_000)

const KEY = "bench-webhooks-key-0123456789"
const PENDING = benchSetting("BENCH_PENDING", 10_000, 20)
const SECONDS = benchSetting("BENCH_SECONDS", 4, 0.3)
/** Default 5, at least 3 (a median of alternating runs: the capture ratios swing ±0.1–0.2 run to run); 1 in smoke mode. */
const ROUNDS = Math.max(SMOKE ? 1 : 3, benchSetting("BENCH_ROUNDS_WEBHOOK", 5, 1))
/** Connections in flight for the requests-per-second runs. */
const CONNECTIONS = SMOKE ? 2 : 16
/** Orders per timed capture run (each run prepares this many for each of the three kinds). */
const ORDERS = benchSetting("BENCH_ORDERS", 40, 2)
/** Deliveries / captures in flight during the capture runs. */
const IN_FLIGHT = benchSetting("BENCH_IN_FLIGHT", 8, 2)
const WORKFLOW_CALLS = benchSetting("BENCH_WORKFLOW_CALLS", 400, 5)
/** BENCH_ONE_ROLLUP=1: every pay-in of the capture runs on one bank and method, so each capture updates the same insights rollup row. */
const ONE_ROLLUP = process.env.BENCH_ONE_ROLLUP === "1"
let sandbox: RunningSandbox
sandboxForApp(KEY, { requisitesPerMethod: 1000, webhookUrl: null }, (s) => (sandbox = s))

/** Server time per closed → capture webhook at once (1 / median throughput), for the workflow figure. */
let webhookCaptureMs: number | null = null

/**
 * Sends the orders' closed webhooks and waits until this process booked them (the runner's app runs
 * in shared mode: its drain books them); the batch's time and rate are from the first send to the
 * last booking. Throws unless every webhook was answered 200 and every order's payment is captured.
 */
async function deliverAndBook(container: MedusaContainer, base: string, inFlight: number, orders: PayinOrder[], what: string): Promise<Batch> {
  const started = performance.now()
  const result = await batch(base, inFlight, orders.map((o) => o.webhook))
  await applyWebhookInbox(container)
  const ms = performance.now() - started
  if (result.statuses[200] !== orders.length) {
    throw new Error(`${what}: answers ${JSON.stringify(result.statuses)}, first: ${result.bodies[0]}`)
  }
  const left = await uncaptured(container, orders.map((o) => o.sessionId))
  if (left.length) throw new Error(`${what}: ${left.length} of ${orders.length} orders not captured after their webhook`)
  return { ...result, ms, rps: orders.length / (ms / 1000) }
}

/** Holds the scheduled reconciliation's lock for the benchmark, so every lookup the service sees comes from what is measured. */
async function holdReconciliation(knex: any): Promise<void> {
  await knex.raw(
    `insert into locking (id, owner_id, expiration) values (?, ?, now() + interval '1 hour')
     on conflict (id) do update set owner_id = excluded.owner_id, expiration = excluded.expiration`,
    ["payin:reconcile", "bench-webhooks"]
  )
}

medusaIntegrationTestRunner({
  inApp: true,
  cwd: path.join(__dirname, "..", "app"),
  testSuite: ({ api, getContainer }) => {
    it("measures webhook throughput, service calls and reconciliation", async () => {
      const base = api.defaults.baseURL as string
      const container = getContainer()
      const client = new PayinClient({ baseUrl: sandbox.url, apiKey: KEY })
      const lines: string[] = []
      const knex = container.resolve("__pg_connection__") as any

      // The scheduled reconciliation (src/jobs) looks up unfinished pay-ins: hold its lock
      await holdReconciliation(knex)
      const calls = countServiceCalls(sandbox)

      // pay-ins the store knows (ledger rows), created at the sandbox
      const makePayins = async (n: number, tag: string) => {
        const made: { id: string; ledgerId: string }[] = []
        const size = 200
        for (let start = 0; start < n; start += size) {
          const txs = await Promise.all(
            Array.from({ length: Math.min(size, n - start) }, (_, k) =>
              client.createPayInOnce({
                fiatAmount: 100 + ((start + k) % 9000),
                fiatCurrency: "RUB",
                extra: { externalTransactionId: `${tag}-${start + k}` },
              })
            )
          )
          const rows = txs.map((tx) => ({
            id: generateEntityId(undefined, "payintx"),
            provider_id: "pp_payin_default",
            session_id: tx.extra.externalTransactionId,
            service_id: tx.id,
            status: "active",
            amount: tx.fiatAmount,
            raw_amount: JSON.stringify({ value: tx.fiatAmount, precision: 20 }),
            currency_code: "rub",
            fiat_amount: tx.fiatAmount,
            created_at: new Date(Date.now() - 3600_000),
          }))
          await knex("payin_transaction").insert(rows)
          made.push(...txs.map((tx, k) => ({ id: tx.id, ledgerId: rows[k].id })))
        }
        return made
      }

      const signed = (body: string) => ({ "content-type": "application/json", "x-signature": sign(body, KEY) })
      const hook = "/hooks/payin/default"

      // ------------------------------------------------------------------------------------------
      // 1. Webhook requests per second against the trivial route, ROUNDS alternating runs.
      // ------------------------------------------------------------------------------------------
      // rejected: a well-formed body with a wrong signature
      const [one] = await makePayins(1, "bench-reject")
      const body = JSON.stringify(await client.getTransaction(one.id))
      const forgedReq: BenchRequest = {
        method: "POST",
        path: hook,
        headers: { "content-type": "application/json", "x-signature": sign(body, "not-the-merchant-key") },
        body,
      }
      // duplicate: the same applied callback again and again
      const first = await rate(base, 1, 1, (i) => (i === 0 ? { method: "POST", path: hook, headers: signed(body), body } : null))
      expect(first.statuses[200]).toBe(1)
      const duplicateReq: BenchRequest = { method: "POST", path: hook, headers: signed(body), body }
      // a new status change each time: distinct ledger-only pay-ins (no order), each reported canceled once
      const perRound = SMOKE ? 20 : Math.max(300, SECONDS * 150)
      const fresh = await makePayins(perRound * ROUNDS, "bench-new")
      const canceledBodies = fresh.map((p) => JSON.stringify({ ...sandbox.transaction(p.id)!, status: "canceled" }))

      const trivialReq = (): BenchRequest => ({ method: "GET", path: hook })
      // the same body POSTed to Medusa's own generic webhook route: its raw-body JSON parser, an
      // event emitted, 200 before any verification: the trivial route for a webhook with a body
      const trivialPostReq = (): BenchRequest => ({ method: "POST", path: "/hooks/payment/payin_default", headers: signed(body), body })
      for (const next of [trivialReq, trivialPostReq, () => forgedReq, () => duplicateReq]) {
        await rate(base, CONNECTIONS, Math.min(1, SECONDS), next) // warm-up
      }
      const routes = await alternating<"trivial" | "trivialPost" | "health" | "forged" | "duplicate" | "canceled", Rate>(ROUNDS, {
        trivial: () => rate(base, CONNECTIONS, SECONDS, trivialReq),
        trivialPost: () => rate(base, CONNECTIONS, SECONDS, trivialPostReq),
        health: () => rate(base, CONNECTIONS, SECONDS, () => ({ method: "GET", path: "/health" })),
        forged: () => calls.during(() => rate(base, CONNECTIONS, SECONDS, () => forgedReq)),
        duplicate: () => calls.during(() => rate(base, CONNECTIONS, SECONDS, () => duplicateReq)),
        canceled: (round) =>
          calls.during(() =>
            rate(base, CONNECTIONS, SECONDS, (i) => {
              const b = i < perRound ? canceledBodies[round * perRound + i] : undefined
              return b ? { method: "POST", path: hook, headers: signed(b), body: b } : null
            })
          ),
      })
      expect(routes.trivial.every((r) => Object.keys(r.statuses).join() === "200")).toBe(true)
      expect(routes.forged.every((r) => Object.keys(r.statuses).join() === "401")).toBe(true)
      expect(routes.duplicate.every((r) => Object.keys(r.statuses).join() === "200")).toBe(true)
      expect(routes.canceled.every((r) => Object.keys(r.statuses).join() === "200")).toBe(true)

      const rps = (runs: Rate[]) => `${median(runs.map((r) => r.rps)).toFixed(0)} req/s`
      const toTrivial = (runs: Rate[]) => runs.map((r, k) => r.rps / routes.trivial[k].rps)
      const toTrivialPost = (runs: Rate[]) => runs.map((r, k) => r.rps / routes.trivialPost[k].rps)
      const statuses = (runs: Rate[]) => JSON.stringify(runs.map((r) => r.statuses))
      lines.push(
        `baseline GET /hooks/payin/default (trivial route, ${CONNECTIONS} connections, ${SECONDS} s runs): ${rps(routes.trivial)}; POST of the same body to Medusa's /hooks/payment/payin_default (trivial POST): ${rps(routes.trivialPost)}; GET /health ${rps(routes.health)} (medians of ${ROUNDS})`
      )
      lines.push(
        `webhook forged (bad signature) / trivial GET: ${medianOf(toTrivial(routes.forged), 3)}; / trivial POST: ${medianOf(toTrivialPost(routes.forged), 3)}, ${rps(routes.forged)} (target >= 0.9) answers ${statuses(routes.forged)}`
      )
      lines.push(
        `webhook duplicate / trivial GET: ${medianOf(toTrivial(routes.duplicate), 3)}; / trivial POST: ${medianOf(toTrivialPost(routes.duplicate), 3)}, ${rps(routes.duplicate)} (target >= 0.9) answers ${statuses(routes.duplicate)}`
      )
      lines.push(
        `webhook new status change of a ledger-only pay-in (active → canceled, no order) / trivial route: ${medianOf(toTrivial(routes.canceled), 3)}, ${rps(routes.canceled)} answers ${statuses(routes.canceled)}`
      )

      // ------------------------------------------------------------------------------------------
      // 2, 3. Closed → capture of placed orders: service at once vs 50 ms late, vs Medusa's capture.
      // ------------------------------------------------------------------------------------------
      const seed = await seedDemoStore(container, {
        providerIds: ["pp_payin_default", "pp_system_default"],
        adminEmail: TEST_ADMIN.email,
        adminPassword: TEST_ADMIN.password,
      })
      const shop = new Storefront(api, seed)
      const admin = await adminHeaders(container, api)
      const ctx = { container, shop, sandbox, key: KEY, ...(ONE_ROLLUP ? { sessionData: { bank: "sberbank", method: "card" } } : {}) }

      const deliver = async (orders: PayinOrder[], what: string): Promise<Batch> => calls.during(() => deliverAndBook(container, base, IN_FLIGHT, orders, what))
      const captureInMedusa = async (orders: SystemOrder[]): Promise<Batch> => {
        const result = await batch(
          base,
          IN_FLIGHT,
          orders.map((o) => ({
            method: "POST",
            path: `/admin/payments/${o.paymentId}/capture`,
            headers: { ...admin.headers, "content-type": "application/json" },
            body: "{}",
          }))
        )
        if (result.statuses[200] !== orders.length) {
          throw new Error(`Medusa capture: answers ${JSON.stringify(result.statuses)}, e.g. ${result.bodies.find((b) => !b.includes('"payment"'))}`)
        }
        const left = await uncaptured(container, orders.map((o) => o.sessionId))
        if (left.length) throw new Error(`Medusa capture: ${left.length} of ${orders.length} payments not captured`)
        return result
      }
      const late = async <T>(job: () => Promise<T>): Promise<T> => {
        sandbox.setFaults([{ route: "*", delayMs: 50 }])
        try {
          return await job()
        } finally {
          sandbox.clearFaults()
        }
      }

      // the service is really 50 ms late while the fault is set
      const probeStart = performance.now()
      await late(() => client.getTransaction(one.id))
      const probeMs = performance.now() - probeStart
      expect(probeMs).toBeGreaterThanOrEqual(45)

      // warm-up (not recorded): the capture paths once each
      {
        const warm = SMOKE ? 1 : 4
        const warmPayin = await preparePayinOrders(ctx, 2 * warm)
        const warmSystem = await prepareSystemOrders(ctx, warm)
        await deliver(warmPayin.slice(0, warm), "warm-up at once")
        await late(() => deliver(warmPayin.slice(warm), "warm-up 50 ms late"))
        await captureInMedusa(warmSystem)
      }

      let prepared: { atOnce: PayinOrder[]; late: PayinOrder[]; system: SystemOrder[] } | null = null
      const preparation = { ms: 0 }
      const captures = await alternating<"atOnce" | "late" | "medusa", Batch>(
        ROUNDS,
        {
          atOnce: async () => deliver(prepared!.atOnce, "webhook at once"),
          late: async () => late(() => deliver(prepared!.late, "webhook, service 50 ms late")),
          medusa: async () => captureInMedusa(prepared!.system),
        },
        async () => {
          const started = performance.now()
          const payin = await preparePayinOrders(ctx, 2 * ORDERS)
          // interleaved, so both runs get orders of the same age
          prepared = {
            atOnce: payin.filter((_, i) => i % 2 === 0),
            late: payin.filter((_, i) => i % 2 === 1),
            system: await prepareSystemOrders(ctx, ORDERS),
          }
          preparation.ms += performance.now() - started
        }
      )
      const perSecond = (runs: Batch[]) => `${median(runs.map((r) => r.rps)).toFixed(1)}/s`
      const latency = (runs: Batch[]) => `${median(runs.map((r) => r.p50)).toFixed(1)} ms`
      const lateRatio = captures.late.map((r, k) => r.rps / captures.atOnce[k].rps)
      const medusaRatio = captures.atOnce.map((r, k) => r.rps / captures.medusa[k].rps)
      webhookCaptureMs = 1000 / median(captures.atOnce.map((r) => r.rps))
      lines.push(
        `webhook closed → booked (answered, then captured by the shared process's drain; rate from the first send to the last capture), service 50 ms late / at once: ${medianOf(lateRatio)} (target >= 0.95); ` +
          `at once ${perSecond(captures.atOnce)} (p50 ${latency(captures.atOnce)}), 50 ms late ${perSecond(captures.late)} (p50 ${latency(captures.late)}); ` +
          `${ORDERS} placed orders per run, ${IN_FLIGHT} in flight, every order captured${ONE_ROLLUP ? ", every pay-in on one bank and method (one rollup row)" : ""}`
      )
      lines.push(
        `capture of a placed order: webhook closed → booked in shared mode / Medusa's POST /admin/payments/:id/capture (pp_system_default), throughput: ${medianOf(medusaRatio)}; ` +
          `webhook ${perSecond(captures.atOnce)} (p50 ${latency(captures.atOnce)}), Medusa ${perSecond(captures.medusa)} (p50 ${latency(captures.medusa)}); same ${IN_FLIGHT} in flight, same runs${ONE_ROLLUP ? ", every pay-in on one bank and method" : ""}`
      )

      // ------------------------------------------------------------------------------------------
      // Service calls while webhooks were delivered (forged, duplicate, canceled, closed → capture).
      // ------------------------------------------------------------------------------------------
      const lookups = calls.lookupsInWindow()
      lines.push(`webhook lookups at the service during the webhook benchmark: ${lookups} (must be 0)`)
      lines.push(
        `  (service requests of any kind during the webhook deliveries: ${JSON.stringify(calls.inWindow)}; ` +
          `lookups outside them, by the checkouts and the benchmark's own preparation: ${calls.lookupsOutside()}; ` +
          `orders prepared in ${(preparation.ms / 1000).toFixed(0)} s, untimed)`
      )

      // ------------------------------------------------------------------------------------------
      // Reconciliation of PENDING pay-ins the service still reports active.
      // ------------------------------------------------------------------------------------------
      await knex("payin_transaction").whereNot("status", "active").orWhere("service_id", one.id).update({ status: "closed" })
      await makePayins(PENDING, "bench-reconcile")
      // a real gc() for the retained-memory figure (jest does not expose it)
      setFlagsFromString("--expose_gc")
      const gc = runInNewContext("gc") as () => void
      gc()
      const heapBefore = process.memoryUsage().heapUsed
      const rssBefore = process.memoryUsage().rss
      let peakRss = rssBefore
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50)
      const started = performance.now()
      const report = await reconcilePayins(container, { olderThanSeconds: 0 })
      const seconds = (performance.now() - started) / 1000
      clearInterval(sampler)
      gc()
      const retained = process.memoryUsage().heapUsed - heapBefore
      const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`
      lines.push(
        `reconciliation of ${PENDING} pending pay-ins: ${seconds.toFixed(1)} s (target <= 10 s), ${report.checked} looked up; ` +
          `memory growth: ${mb(retained)} retained heap, ${mb(peakRss - rssBefore)} peak RSS (target <= 100 MB)`
      )

      recordLines(lines)
      console.log(["", "webhook and reconciliation benchmark", ...lines, ""].join("\n"))
      expect(report.checked).toBeGreaterThanOrEqual(PENDING)
      expect(lookups).toBe(0)
    })

    it("measures the cost of running the apply path as a workflow", async () => {
      const container = getContainer()
      const lines: string[] = []
      const perCall = async (run: (i: number) => Promise<unknown>) => {
        const started = performance.now()
        for (let i = 0; i < WORKFLOW_CALLS; i++) {
          await run(i)
        }
        return ((performance.now() - started) * 1000) / WORKFLOW_CALLS // µs
      }
      const phases = {
        plain: () => perCall((i) => applyPlain(container, { i })),
        workflow: () =>
          perCall(async (i) => {
            const { result } = await applyWorkflow(container).run({ input: { i } })
            if (result !== i) throw new Error(`workflow answered ${result} for ${i}`)
          }),
        noop: () => perCall((i) => noopWorkflow(container).run({ input: { i } })),
      }
      for (const warm of Object.values(phases)) {
        await warm()
      }
      const runs = await alternating(ROUNDS, phases)
      const us = (v: number) => `${v.toFixed(0)} µs`
      const overhead = runs.workflow.map((w, k) => w - runs.plain[k])
      const share = webhookCaptureMs
        ? `, ${((median(overhead) / 1000 / webhookCaptureMs) * 100).toFixed(1)}% of the server time per closed → capture webhook measured above (1 / throughput = ${webhookCaptureMs.toFixed(0)} ms)`
        : ""
      lines.push(
        `apply path (lock, record, effects; each one select 1) per call, ${WORKFLOW_CALLS} calls one after another: ` +
          `plain async function ${us(median(runs.plain))} (median of ${ROUNDS}: ${runs.plain.map(us).join(", ")}), ` +
          `createWorkflow of 3 steps, in-memory engine, not stored ${us(median(runs.workflow))} (median of ${ROUNDS}: ${runs.workflow.map(us).join(", ")})`
      )
      lines.push(
        `workflow overhead per webhook: ${us(median(overhead))} (median of ${ROUNDS}: ${overhead.map(us).join(", ")})${share}; ` +
          `workflow / plain ${medianOf(runs.workflow.map((w, k) => w / runs.plain[k]))}; 3 empty steps alone ${us(median(runs.noop))}/call`
      )
      recordLines(lines)
      console.log(["", "workflow cost benchmark", ...lines, ""].join("\n"))
    })

    it("measures the cost of the plugin's tracing and metrics (OpenTelemetry registered vs not)", async () => {
      const base = api.defaults.baseURL as string
      const container = getContainer()
      await holdReconciliation(container.resolve("__pg_connection__"))
      const seed = await seedDemoStore(container, {
        providerIds: ["pp_payin_default"],
        adminEmail: TEST_ADMIN.email,
        adminPassword: TEST_ADMIN.password,
      })
      const ctx = { container, shop: new Storefront(api, seed), sandbox, key: KEY }
      const capture = async (orders: PayinOrder[], what: string) =>
        deliverAndBook(container, base, IN_FLIGHT, orders, what)
      const otel = switchableOtel()
      try {
        // each timed run switches OpenTelemetry on or off first, and counts the spans exported during
        // it and this process's CPU time per request (Medusa, the plugin and the load generator: the
        // machine's other load, which moves throughput by ±30 % here, moves it far less)
        type Counted = { spans: number; cpuMsPerRequest: number }
        const counted: Record<"on" | "off", Counted[]> = { on: [], off: [] }
        const as = <T extends { count: number }>(mode: "on" | "off", run: () => Promise<T>) => async (): Promise<T> => {
          otel[mode]()
          await otel.flush() // what the untimed preparation traced goes out before the count starts
          const before = otel.spansExported()
          const cpu = process.cpuUsage()
          const result = await run()
          const used = process.cpuUsage(cpu)
          await otel.flush()
          counted[mode].push({ spans: otel.spansExported() - before, cpuMsPerRequest: (used.user + used.system) / 1000 / result.count })
          return result
        }
        const taken = () => {
          const runs = { on: [...counted.on], off: [...counted.off] }
          counted.on.length = counted.off.length = 0
          return runs
        }

        // warm-up (not recorded): both ways
        const warm = await preparePayinOrders(ctx, SMOKE ? 2 : 8)
        await as("on", () => capture(warm.slice(0, warm.length / 2), "warm-up traced"))()
        await as("off", () => capture(warm.slice(warm.length / 2), "warm-up untraced"))()
        taken()

        // closed → capture of placed orders, ORDERS per run, orders of the same age both ways
        let prepared: { on: PayinOrder[]; off: PayinOrder[] } | null = null
        const captures = await alternating(
          ROUNDS,
          {
            off: as("off", () => capture(prepared!.off, "webhook, tracing not registered")),
            on: as("on", () => capture(prepared!.on, "webhook, tracing registered")),
          },
          async () => {
            const orders = await preparePayinOrders(ctx, 2 * ORDERS)
            prepared = { off: orders.filter((_, i) => i % 2 === 0), on: orders.filter((_, i) => i % 2 === 1) }
          }
        )
        const captureCounts = taken()

        // duplicates: one applied callback again and again (verify, the inbox's memory, answer)
        const duplicate = warm[0].webhook
        await rate(base, CONNECTIONS, Math.min(1, SECONDS), () => duplicate) // warm-up
        const duplicates = await alternating(ROUNDS, {
          off: as("off", () => rate(base, CONNECTIONS, SECONDS, () => duplicate)),
          on: as("on", () => rate(base, CONNECTIONS, SECONDS, () => duplicate)),
        })
        expect(duplicates.on.concat(duplicates.off).every((r) => Object.keys(r.statuses).join() === "200")).toBe(true)
        const duplicateCounts = taken()

        // what was measured: spans while registered, none while not
        expect(captureCounts.on.concat(duplicateCounts.on).every((c) => c.spans > 0)).toBe(true)
        expect(captureCounts.off.concat(duplicateCounts.off).every((c) => c.spans === 0)).toBe(true)

        // the plugin's own telemetry calls of one webhook, alone in a loop (CPU time, so the machine's
        // other load hardly moves it): what tracing adds to each request, against its CPU time above
        const ledgerId = "payintx_01JBENCH0000000000000000000"
        const webhookCalls = (capturing: boolean) =>
          traceWebhook(
            "default",
            async (span) => {
              await traced(SPANS.webhookVerify, {}, async (s) => s.set({ "payin.webhook.signature": "ok" }))
              await traced(SPANS.webhookStore, {}, async () => ({ inserted: capturing }), (e) => ({ "payin.inbox.new": e.inserted }))
              span.set({ "payin.provider_id": "pp_payin_default" })
              if (!capturing) return "duplicate"
              await traced(SPANS.apply, { "payin.source": "webhook" }, async (apply) => {
                countStatusChanges([{ kind: "status", from: "active", to: "closed" }])
                await traceEffect("capture", ledgerId, async () => ({ outcome: "done" as const }))
                capturedSince(Date.now() - 50, "webhook")
                apply.set({ "payin.id": ledgerId, "payin.status.from": "active", "payin.status.to": "closed", "payin.status.changed": true, "payin.effect_pending": false })
              })
              return "stored"
            },
            () => 200
          )
        const CALLS = SMOKE ? 200 : 20_000
        const loop = (capturing: boolean) => async () => {
          const cpu = process.cpuUsage()
          for (let i = 0; i < CALLS; i++) await webhookCalls(capturing)
          const used = process.cpuUsage(cpu)
          return { count: CALLS, cpuUs: (used.user + used.system) / CALLS }
        }
        const calls = await alternating(ROUNDS, {
          duplicateOff: as("off", loop(false)),
          duplicateOn: as("on", loop(false)),
          captureOff: as("off", loop(true)),
          captureOn: as("on", loop(true)),
        })
        taken()
        const cpuUs = (runs: { cpuUs: number }[]) => median(runs.map((r) => r.cpuUs))
        const cpuMsOff = (c: { off: Counted[] }) => median(c.off.map((x) => x.cpuMsPerRequest))
        const added = (on: { cpuUs: number }[], off: { cpuUs: number }[], perRequestMs: number) => {
          const extra = cpuUs(on) - cpuUs(off)
          return `+${extra.toFixed(1)} µs (${cpuUs(on).toFixed(1)} vs ${cpuUs(off).toFixed(1)} µs), ${((extra / 1000 / perRequestMs) * 100).toFixed(1)} % of its request's CPU time above`
        }

        const perSecond = (runs: { rps: number }[]) => `${median(runs.map((r) => r.rps)).toFixed(1)}/s`
        const ratio = (on: { rps: number }[], off: { rps: number }[]) => on.map((r, k) => r.rps / off[k].rps)
        const spansPer = (c: Counted[], runs: { count: number }[]) =>
          (c.reduce((a, b) => a + b.spans, 0) / runs.reduce((a, b) => a + b.count, 0)).toFixed(1)
        const cpu = (c: { on: Counted[]; off: Counted[] }) => {
          const on = median(c.on.map((x) => x.cpuMsPerRequest))
          const off = median(c.off.map((x) => x.cpuMsPerRequest))
          const perRun = c.on.map((x, k) => x.cpuMsPerRequest / c.off[k].cpuMsPerRequest)
          return `process CPU per request registered / not ${medianOf(perRun, 3)}: ${on.toFixed(2)} ms vs ${off.toFixed(2)} ms (medians)`
        }
        const lines = [
          `tracing registered / not registered (the plugin's spans and metrics; SDK tracer provider, batch span processor, no-op exporter; meter provider), ` +
            `webhook closed → capture throughput: ${medianOf(ratio(captures.on, captures.off))} (target >= 0.95); registered ${perSecond(captures.on)}, not ${perSecond(captures.off)}; ` +
            `${cpu(captureCounts)}; ${ORDERS} placed orders per run, ${IN_FLIGHT} in flight, ${spansPer(captureCounts.on, captures.on)} spans per webhook`,
          `tracing registered / not registered, duplicate webhooks: ${medianOf(ratio(duplicates.on, duplicates.off))} (target >= 0.95); registered ${perSecond(duplicates.on)}, not ${perSecond(duplicates.off)}; ` +
            `${cpu(duplicateCounts)}; ${CONNECTIONS} connections, ${SECONDS} s runs, ${spansPer(duplicateCounts.on, duplicates.on)} spans per request`,
          `tracing registered / not registered, the plugin's telemetry calls of one webhook alone (${CALLS} in a loop, CPU time, median of ${ROUNDS}): ` +
            `duplicate ${added(calls.duplicateOn, calls.duplicateOff, cpuMsOff(duplicateCounts))}; closed → capture ${added(calls.captureOn, calls.captureOff, cpuMsOff(captureCounts))}`,
        ]
        recordLines(lines)
        console.log(["", "tracing cost benchmark", ...lines, ""].join("\n"))
      } finally {
        await otel.shutdown()
      }
    })
  },
})
