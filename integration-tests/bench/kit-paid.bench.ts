// `npm run bench` (storefront kit part), on the demo's defaults (the test app, one shared process:
// server and worker): how long a shopper waits, from the service's webhook to the storefront kit
// showing the order paid and captured. Per order: placed, the kit's real pollPayinStatus started
// in node against the real store API (createPayinStoreClient over HTTP), the pay-in paid at the
// sandbox, which sends its signed webhook by itself; measured from the webhook's arrival at Medusa
// (its inbox entry's created_at) and from the pay call, to the kit's onUpdate with `final` and the
// order's payment status `captured`. Alternating per order: the kit's default (long polling)
// against plain polling (longPollSeconds: 0, the kit before long polling). p50/p95 printed and
// recorded; asserts only correctness (paid shown, captured once on Medusa's records).
import path from "path"
import { performance } from "perf_hooks"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { RunningSandbox } from "../../src/sandbox"
import { pollPayinStatus } from "../../src/storefront/poll"
import { createPayinStoreClient } from "../../src/storefront/store-client"
import type { PayinStatusResponse } from "../../src/storefront/types"
import { seedDemoStore } from "../app/seed/demo-store"
import { TEST_ADMIN } from "../support/admin"
import { control, sandboxForApp } from "../support/sandbox"
import { Storefront, placedOrderAwaitingPayment } from "../support/storefront"
import { ledgerOf } from "../support/harness"
import { recordLines } from "./record"
import { SMOKE, benchSetting } from "./smoke"

jest.setTimeout(900_000)

const KEY = "bench-kit-paid-key-0123456789"
const ORDERS = benchSetting("BENCH_KIT_ORDERS", 20, 2)
const PLAIN_ORDERS = benchSetting("BENCH_KIT_PLAIN_ORDERS", 10, 1)
let sandbox: RunningSandbox
sandboxForApp(KEY, undefined, (s) => (sandbox = s))

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}
const summary = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(0)} ms, p95 ${percentile(values, 95).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms (${values.length} orders)`

medusaIntegrationTestRunner({
  inApp: true,
  cwd: path.join(__dirname, "..", "app"),
  testSuite: ({ api, getContainer }) => {
    it("measures webhook → paid and captured in the kit", async () => {
      const base = api.defaults.baseURL as string
      sandbox.updateMerchant({ webhookUrl: `${base}/hooks/payin/default` })
      const container = getContainer()
      const seed = await seedDemoStore(container, { providerIds: ["pp_payin_default"], adminEmail: TEST_ADMIN.email, adminPassword: TEST_ADMIN.password })
      const shop = new Storefront(api, seed)
      const ledger = ledgerOf(getContainer)
      const pg = () => container.resolve(ContainerRegistrationKeys.PG_CONNECTION) as any
      const client = createPayinStoreClient({ baseUrl: base, publishableKey: seed.publishableKey })

      /** One order: the kit polls, the shopper pays; ms from the webhook's arrival and from the pay call. */
      const oneOrder = async (longPollSeconds: number) => {
        const { payin, orderId, session } = await placedOrderAwaitingPayment(shop, sandbox, ledger)
        let started!: () => void
        let shown!: (r: PayinStatusResponse | Error) => void
        const first = new Promise<void>((resolve) => (started = resolve))
        const final = new Promise<PayinStatusResponse | Error>((resolve) => (shown = resolve))
        let requests = 0
        const poller = pollPayinStatus(
          (wait) => {
            requests++
            return client.status({ order_id: orderId }, wait)
          },
          {
            longPollSeconds,
            onUpdate: (r) => {
              started()
              if (r.payin?.final) shown(r)
            },
            onError: (e) => shown(e instanceof Error ? e : new Error(String(e))),
          }
        )
        await first
        const paidAt = performance.now()
        const paid = await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
        if (paid.status !== 200) throw new Error(`paying ${payin.id}: ${paid.status}`)
        const answer = await final
        const shownAt = performance.now()
        const shownWall = Date.now()
        poller.stop()
        if (answer instanceof Error) throw answer
        expect(answer.payin).toMatchObject({ state: "paid", final: true })
        expect(answer.order?.payment_status).toBe("captured")
        const { rows } = await pg().raw(
          "select created_at from payin_webhook_event where service_id = ? and status = 'closed' order by created_at limit 1",
          [payin.id]
        )
        const arrived = new Date(rows[0].created_at).getTime()
        return { fromWebhook: shownWall - arrived, fromPay: shownAt - paidAt, orderId, sessionId: session.id, requests }
      }

      await oneOrder(25) // warm both paths
      await oneOrder(0)
      const long: Awaited<ReturnType<typeof oneOrder>>[] = []
      const plain: Awaited<ReturnType<typeof oneOrder>>[] = []
      for (let i = 0; long.length < ORDERS || plain.length < PLAIN_ORDERS; i++) {
        // alternating while both have orders left, so drift hits both alike
        if (long.length < ORDERS && (i % 2 === 0 || plain.length >= PLAIN_ORDERS)) long.push(await oneOrder(25))
        else plain.push(await oneOrder(0))
      }

      // Medusa's own records: every measured order captured exactly once
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const sessions = [...long, ...plain].map((o) => o.sessionId)
      const { data: payments } = await query.graph({ entity: "payment", fields: ["id", "captures.id", "payment_session_id"], filters: { payment_session_id: sessions } })
      expect(payments).toHaveLength(sessions.length)
      expect(payments.every((p: any) => p.captures?.length === 1)).toBe(true)

      const lines = [
        `kit long polling (default): webhook arrival → kit shows paid + captured: ${summary(long.map((o) => o.fromWebhook))}; from the pay call: ${summary(long.map((o) => o.fromPay))}; ${(long.reduce((n, o) => n + o.requests, 0) / long.length).toFixed(1)} requests per order (target p95 <= 1000 ms from the webhook)`,
        `kit plain polling (longPollSeconds: 0, the kit before; paid right after its first answer, so at its shortest delay, 2 s): webhook arrival → kit shows paid + captured: ${summary(plain.map((o) => o.fromWebhook))}; from the pay call: ${summary(plain.map((o) => o.fromPay))}`,
      ]
      recordLines(lines)
      console.log(["", `storefront kit benchmark (${SMOKE ? "smoke" : "full"}: ${ORDERS} long-polled, ${PLAIN_ORDERS} plain, one at a time)`, ...lines, ""].join("\n"))
    })
  },
})
