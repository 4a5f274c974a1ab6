// `npm run bench` (webhook part), on a running store (real Medusa + PostgreSQL + the sandbox):
//   webhook requests per second for three paths, each as a ratio to GET /health on the same
//   server, measured the same way in the same run: rejected (bad signature), duplicate, and a new
//   status change (also reported absolute);
//   reconciliation of 10,000 pending pay-ins against the sandbox: time and memory growth.
// Prints; asserts nothing about time.
import path from "path"
import { performance } from "perf_hooks"
import { setFlagsFromString } from "v8"
import { runInNewContext } from "vm"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { generateEntityId } from "@medusajs/framework/utils"
import { PAYIN_MODULE } from "../../medusa-plugin.config"
import { PayinClient } from "../../src/client/client"
import { sign } from "../../src/client/signature"
import type { RunningSandbox } from "../../src/sandbox"
import { reconcilePayins } from "../../src/money-path/reconcile"
import { sandboxForApp } from "../support/sandbox"
import { rate } from "./rate"
import { recordLines } from "./record"

jest.setTimeout(900_000)

const KEY = "bench-webhooks-key-0123456789"
const PENDING = Number(process.env.BENCH_PENDING || 10_000)
const SECONDS = Number(process.env.BENCH_SECONDS || 5)
let sandbox: RunningSandbox
sandboxForApp(KEY, { requisitesPerMethod: 1000, webhookUrl: null }, (s) => (sandbox = s))

medusaIntegrationTestRunner({
  inApp: true,
  cwd: path.join(__dirname, "..", "app"),
  testSuite: ({ api, getContainer }) => {
    it("measures webhook throughput and reconciliation", async () => {
      const base = api.defaults.baseURL as string
      const container = getContainer()
      const ledger = container.resolve(PAYIN_MODULE) as any
      const client = new PayinClient({ baseUrl: sandbox.url, apiKey: KEY })
      const lines: string[] = []
      const knex = container.resolve("__pg_connection__") as any

      // pay-ins the store knows (ledger rows), created at the sandbox
      const makePayins = async (n: number, tag: string) => {
        const made: { id: string; ledgerId: string }[] = []
        const batch = 200
        for (let start = 0; start < n; start += batch) {
          const txs = await Promise.all(
            Array.from({ length: Math.min(batch, n - start) }, (_, k) =>
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

      // baselines: the plugin's trivial GET on the webhook URL (same route stack as the POSTs),
      // and Medusa's /health (which skips most of that stack), both reported
      const warm = await rate(base, 16, 1, () => ({ method: "GET", path: "/hooks/payin/default" }))
      expect(warm.statuses[200]).toBeGreaterThan(0)
      const trivial = await rate(base, 16, SECONDS, () => ({ method: "GET", path: "/hooks/payin/default" }))
      const health = await rate(base, 16, SECONDS, () => ({ method: "GET", path: "/health" }))

      // rejected: a well-formed body with a wrong signature
      const [one] = await makePayins(1, "bench-reject")
      const body = JSON.stringify(await client.getTransaction(one.id))
      const rejected = await rate(base, 16, SECONDS, () => ({
        method: "POST",
        path: "/hooks/payin/default",
        headers: { "content-type": "application/json", "x-signature": sign(body, "not-the-merchant-key") },
        body,
      }))

      // duplicate: the same applied callback again and again
      await client.getTransaction(one.id)
      const first = await rate(base, 1, 1, (i) => (i === 0 ? { method: "POST", path: "/hooks/payin/default", headers: signed(body), body } : null))
      expect(first.statuses[200]).toBe(1)
      const duplicate = await rate(base, 16, SECONDS, () => ({ method: "POST", path: "/hooks/payin/default", headers: signed(body), body }))

      // a new status change each time: distinct pay-ins, each reported closed once
      const fresh = await makePayins(3000, "bench-new")
      const bodies = fresh.map((p) => {
        const tx = sandbox.transaction(p.id)!
        return JSON.stringify({ ...tx, status: "canceled" })
      })
      const changes = await rate(base, 16, SECONDS, (i) =>
        i < bodies.length ? { method: "POST", path: "/hooks/payin/default", headers: signed(bodies[i]), body: bodies[i] } : null
      )

      const ratio = (r: { rps: number }) => (r.rps / trivial.rps).toFixed(3)
      lines.push(`GET /hooks/payin/default (baseline, trivial route): ${trivial.rps.toFixed(0)} req/s; GET /health ${health.rps.toFixed(0)} req/s`)
      lines.push(`webhook rejected (bad signature): ${rejected.rps.toFixed(0)} req/s, ratio ${ratio(rejected)} (target >= 0.8) ${JSON.stringify(rejected.statuses)}`)
      lines.push(`webhook duplicate: ${duplicate.rps.toFixed(0)} req/s, ratio ${ratio(duplicate)} (target >= 0.5) ${JSON.stringify(duplicate.statuses)}`)
      lines.push(`webhook new status change: ${changes.rps.toFixed(0)} req/s, ratio ${ratio(changes)} ${JSON.stringify(changes.statuses)}`)

      // reconciliation of PENDING pay-ins the service still reports active
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
        `reconciliation of ${PENDING} pending pay-ins: ${seconds.toFixed(1)} s (target <= 30 s), ${report.checked} looked up; ` +
          `memory growth: ${mb(retained)} retained heap, ${mb(peakRss - rssBefore)} peak RSS (target <= 100 MB)`
      )
      expect(report.checked).toBeGreaterThanOrEqual(PENDING)

      recordLines(lines)
      console.log(["", "webhook and reconciliation benchmark", ...lines, ""].join("\n"))
      expect(ledger).toBeDefined()
    })
  },
})
