// `npm run bench` (store API part), on a running store (real Medusa + PostgreSQL + the sandbox):
// what storefronts poll, as requests per second and as ratios to Medusa's own store routes for
// the same cart and order, measured the same way in the same run:
//   GET /store/payin/status?order_id=… and ?cart_id=… vs GET /store/orders/:id and GET /store/carts/:id
//   GET /store/payin/banks?cart_id=… (the service's list cached) vs GET /store/carts/:id
// Prints; asserts nothing about time.
import path from "path"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { seedDemoStore } from "../app/seed/demo-store"
import { TEST_ADMIN } from "../support/admin"
import { sandboxForApp } from "../support/sandbox"
import { Storefront } from "../support/storefront"
import { rate } from "./rate"
import { recordLines } from "./record"
import { benchSetting } from "./smoke"

jest.setTimeout(600_000)

const KEY = "bench-store-api-key-0123456789"
const SECONDS = benchSetting("BENCH_SECONDS", 5, 0.3)
const CONNECTIONS = benchSetting("BENCH_CONNECTIONS", 16, 2)
sandboxForApp(KEY, undefined, () => undefined)

medusaIntegrationTestRunner({
  inApp: true,
  cwd: path.join(__dirname, "..", "app"),
  testSuite: ({ api, getContainer }) => {
    it("measures the store routes a storefront polls", async () => {
      const base = api.defaults.baseURL as string
      const seed = await seedDemoStore(getContainer(), {
        providerIds: ["pp_payin_default"],
        adminEmail: TEST_ADMIN.email,
        adminPassword: TEST_ADMIN.password,
      })
      const shop = new Storefront(api, seed)
      const cartId = await shop.cart()
      await shop.session(cartId, "pp_payin_default")
      const completed = await shop.complete(cartId)
      const orderId = completed.data.order.id as string
      const headers = { "x-publishable-api-key": seed.publishableKey }
      const get = (p: string) => () => ({ method: "GET" as const, path: p, headers })

      const routes = {
        cart: get(`/store/carts/${cartId}`),
        order: get(`/store/orders/${orderId}`),
        statusOrder: get(`/store/payin/status?order_id=${orderId}`),
        statusCart: get(`/store/payin/status?cart_id=${cartId}`),
        banks: get(`/store/payin/banks?cart_id=${cartId}`),
      }
      // warm every route (the banks list is fetched from the service once, then cached)
      for (const next of Object.values(routes)) {
        const warm = await rate(base, Math.min(4, CONNECTIONS), Math.min(1, SECONDS), next)
        expect(warm.statuses[200]).toBeGreaterThan(0)
      }
      const measured: Record<string, Awaited<ReturnType<typeof rate>>> = {}
      for (const [name, next] of Object.entries(routes)) {
        measured[name] = await rate(base, CONNECTIONS, SECONDS, next)
        expect(Object.keys(measured[name].statuses)).toEqual(["200"])
      }
      const rps = (name: string) => measured[name].rps.toFixed(0)
      const ratio = (a: string, b: string) => (measured[a].rps / measured[b].rps).toFixed(2)
      const lines = [
        `store API baselines: GET /store/carts/:id ${rps("cart")} req/s, GET /store/orders/:id ${rps("order")} req/s (Medusa's own routes, ${CONNECTIONS} connections)`,
        `GET /store/payin/status?order_id=: ${rps("statusOrder")} req/s, ratio ${ratio("statusOrder", "order")} to GET /store/orders/:id (target >= 1)`,
        `GET /store/payin/status?cart_id=: ${rps("statusCart")} req/s, ratio ${ratio("statusCart", "cart")} to GET /store/carts/:id (target >= 1)`,
        `GET /store/payin/banks?cart_id= (cached): ${rps("banks")} req/s, ratio ${ratio("banks", "cart")} to GET /store/carts/:id (target >= 1)`,
      ]
      recordLines(lines)
      console.log(["", "store API benchmark", ...lines, ""].join("\n"))
    })
  },
})
