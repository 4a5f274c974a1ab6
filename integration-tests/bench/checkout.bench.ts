// `npm run bench` (checkout part): ratios of medians against baselines measured in the same run,
// on a real Medusa + PostgreSQL + the sandbox over loopback. Prints; asserts nothing about time.
//   (a) PayinClient.createPayInOnce           vs a bare undici POST of the same body
//   (b) provider initiatePayment (+ ledger)   vs the same bare POST, sandbox answering 50 ms late
//   (c) full store checkout with pp_payin     vs the same checkout with pp_system_default
import path from "path"
import { performance } from "perf_hooks"
import { Pool } from "undici"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { Modules } from "@medusajs/framework/utils"
import { PAYIN_MODULE, parseProviderOptions } from "../../medusa-plugin.config"
import { PayinClient, closePayinPools } from "../../src/client/client"
import { sign } from "../../src/client/signature"
import { PayinProviderService } from "../../src/providers/payin/service"
import type { RunningSandbox } from "../../src/sandbox"
import { seedDemoStore } from "../app/seed/demo-store"
import { TEST_ADMIN, adminHeaders } from "../support/admin"
import { control, payinsOfSession, startTestSandbox } from "../support/sandbox"
import { recordLines } from "./record"
import { SMOKE, benchSetting } from "./smoke"
import { Storefront } from "../support/storefront"

jest.setTimeout(900_000)

const KEY = "bench-key-0123456789abcdef"
const ROUNDS = benchSetting("BENCH_ROUNDS", 200, 2)
const CHECKOUTS = benchSetting("BENCH_CHECKOUTS", 20, 1)
let sandbox: RunningSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox(KEY)
  sandbox.updateMerchant({ requisitesPerMethod: 1000 })
  process.env.PAYIN_API_KEY = KEY
  process.env.PAYIN_BASE_URL = sandbox.url
})

afterAll(async () => {
  await sandbox?.close()
  await closePayinPools()
})

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const ms = (n: number) => `${n.toFixed(2)} ms`

/** Runs two measured operations interleaved, so drift hits both alike; returns both medians. */
async function paired(rounds: number, a: (i: number) => Promise<unknown>, b: (i: number) => Promise<unknown>) {
  const ta: number[] = []
  const tb: number[] = []
  for (let i = 0; i < rounds; i++) {
    for (const [fn, out] of (i % 2 ? [[a, ta], [b, tb]] : [[b, tb], [a, ta]]) as [typeof a, number[]][]) {
      const start = performance.now()
      await fn(i)
      out.push(performance.now() - start)
    }
  }
  return [median(ta), median(tb)]
}

medusaIntegrationTestRunner({
  inApp: true,
  cwd: path.join(__dirname, "..", "app"),
  testSuite: ({ api, getContainer }) => {
    it("measures the plugin against its baselines", async () => {
      const lines: string[] = []
      const pool = new Pool(sandbox.url, { connections: 8 })
      const bare = async (body: string) => {
        const res = await pool.request({
          method: "POST",
          path: "/payment/trading/pay-in",
          headers: { "content-type": "application/json", "x-api-key": KEY, "x-signature": sign(body, KEY) },
          body,
        })
        await res.body.text()
        if (res.statusCode >= 300) throw new Error(`bare POST answered ${res.statusCode}`)
      }
      const requestBody = (i: number, tag: string) => ({
        fiatAmount: 1000 + (i % 500),
        fiatCurrency: "RUB",
        extra: { externalTransactionId: `bench-${tag}-${i}`, payerInfo: { ip: "127.0.0.1", userAgent: "bench" } },
      })

      // (a) client vs bare POST
      const client = new PayinClient({ baseUrl: sandbox.url, apiKey: KEY })
      for (let i = 0; i < (SMOKE ? 2 : 20); i++) {
        await client.createPayInOnce(requestBody(i, "warm-a"))
        await bare(JSON.stringify(requestBody(i, "warm-b")))
      }
      const [clientA, bareA] = await paired(
        ROUNDS,
        (i) => client.createPayInOnce(requestBody(i, "client")),
        (i) => bare(JSON.stringify(requestBody(i, "bare")))
      )
      const ratioA = clientA / bareA
      lines.push(`(a) client pay-in creation ${ms(clientA)} vs bare undici POST ${ms(bareA)}: ratio ${ratioA.toFixed(3)} (target <= 1.15)`)

      // (b) provider initiatePayment (ledger included) vs bare POST, both against a 50 ms service
      const container = getContainer()
      const provider = new PayinProviderService(
        { [PAYIN_MODULE]: container.resolve(PAYIN_MODULE), logger: container.resolve("logger") },
        parseProviderOptions({ id: "default", apiKey: KEY, baseUrl: sandbox.url })
      )
      sandbox.setFaults([{ route: "POST /payment/trading/pay-in", delayMs: 50 }])
      const rounds = SMOKE ? ROUNDS : Math.max(20, Math.floor(ROUNDS / 4))
      const [providerB, bareB] = await paired(
        rounds,
        (i) =>
          provider.initiatePayment({
            amount: 1000 + (i % 500),
            currency_code: "rub",
            data: { session_id: `payses_bench_${i}` },
            context: {},
          }),
        (i) => bare(JSON.stringify(requestBody(i, "bare-slow")))
      )
      sandbox.clearFaults()
      const ratioB = providerB / bareB
      lines.push(
        `(b) provider initiatePayment + ledger ${ms(providerB)} vs bare POST ${ms(bareB)} (service 50 ms late): ratio ${ratioB.toFixed(3)} (target <= 1.1)`
      )
      await pool.close()

      // (c) full store checkout: pp_payin_default vs pp_system_default, same server
      sandbox.updateMerchant({ webhookUrl: `${api.defaults.baseURL}/hooks/payin/default` })
      const seed = await seedDemoStore(container, {
        providerIds: ["pp_payin_default", "pp_system_default"],
        adminEmail: TEST_ADMIN.email,
        adminPassword: TEST_ADMIN.password,
      })
      const admin = await adminHeaders(container, api)
      const shop = new Storefront(api, seed)
      const paymentModule = container.resolve(Modules.PAYMENT)

      const payinCheckout = async () => {
        const cartId = await shop.cart()
        const session = await shop.session(cartId, "pp_payin_default")
        const orderId = (await shop.complete(cartId)).data.order.id
        const [payin] = payinsOfSession(sandbox, session.id)
        await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
        for (;;) {
          const [payment] = await paymentModule.listPayments({ payment_session_id: session.id })
          if (payment?.captured_at) break
          await new Promise((r) => setTimeout(r, 5))
        }
        return orderId
      }
      const systemCheckout = async () => {
        const cartId = await shop.cart()
        const session = await shop.session(cartId, "pp_system_default")
        const orderId = (await shop.complete(cartId)).data.order.id
        const [payment] = await paymentModule.listPayments({ payment_session_id: session.id })
        await api.post(`/admin/payments/${payment.id}/capture`, {}, admin)
        return orderId
      }
      await payinCheckout()
      await systemCheckout()
      const [payinC, systemC] = await paired(CHECKOUTS, payinCheckout, systemCheckout)
      const ratioC = payinC / systemC
      lines.push(
        `(c) checkout cart→session→complete→pay→webhook→captured ${ms(payinC)} vs pp_system_default (complete + admin capture) ${ms(systemC)}: ratio ${ratioC.toFixed(3)} (target <= 1.5)`
      )

      recordLines(lines)
      console.log(
        ["", `checkout benchmark (rounds: ${ROUNDS} / ${rounds} / ${CHECKOUTS} checkouts, medians)`, ...lines, ""].join("\n")
      )
      expect(lines).toHaveLength(3)
    })
  },
})
