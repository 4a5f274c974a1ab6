// The Next.js 15 storefront of integration-tests/storefront-next (a trimmed copy of Medusa's
// dtc-starter storefront, using the kit exactly as src/storefront/guides/dtc-starter.patch does:
// the same components, server helpers and test ids) against the plugin's test app, in Debian's
// Chromium: copied to a temporary folder, installed with the storefront kit from its packed
// tarball (`npm pack .medusa/storefront`, so `npm run build` first), built with `next build`,
// served with `next start`, and type-checked strictly (the starter's moduleResolution "node", and
// "bundler"). A shopper then buys, pays on the sandbox's hosted Payment Page and comes back
// through the app's return route; pays before the order exists (the return route places it);
// meets `payin_requisites_unavailable`; lets the payment window end; with pay again on, gets new
// details for the same order after the window ended and pays them (captured once), or lets the
// grace period end (the order canceled); the order page's heading follows each outcome. Each phase's time is printed at the end.
import { ChildProcess, spawn } from "child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs"
import os from "os"
import path from "path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import type { RunningSandbox } from "../../src/sandbox"
import type { PayinStatusResponse } from "../../src/storefront/types"
import { ensureChromium, launchBrowser } from "../support/chromium"
import { reconcilePayins } from "../../src/money-path/reconcile"
import { adminHeaders } from "../support/admin"
import { appSpec } from "../support/harness"
import { eventually } from "../support/medusa-process"
import { freePort } from "../support/net"
import { sandboxForApp } from "../support/sandbox"

jest.setTimeout(900_000)

const KEY = "test-key-next-storefront-0123456789"
const root = path.resolve(__dirname, "..", "..")
const appSource = path.join(root, "integration-tests", "storefront-next")
const kitDir = path.join(root, ".medusa", "storefront")
const KIT = "medusa-plugin-payin-storefront"

if (!existsSync(path.join(kitDir, "package.json"))) {
  throw new Error("the storefront kit package is not built: run `npm run build` (npm test does) before this spec")
}
// Medusa cannot boot from a path containing "dist"; keep every path of this test free of it too.
const work = mkdtempSync(path.join(os.tmpdir(), "payin-next-"))
if (work.includes("dist")) throw new Error(`the temporary folder ${work} contains "dist": set TMPDIR elsewhere`)
const app = path.join(work, "storefront")

const phases: [string, number][] = []
async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now()
  try {
    return await fn()
  } finally {
    phases.push([name, (Date.now() - started) / 1000])
  }
}

/** The app's tools run without jest's environment (NODE_ENV=test, NODE_OPTIONS for vm modules). */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", npm_config_audit: "false", npm_config_fund: "false", ...extra }
  delete env.NODE_OPTIONS
  if (!extra.NODE_ENV) delete env.NODE_ENV
  return env
}

/** Runs a command to its end; rejects with its output when it fails. */
function run(command: string, args: string[], env = childEnv()): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: app, env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (out += d))
    child.on("error", reject)
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${out.slice(-6000)}`))))
  })
}

/**
 * Copy and install (the kit from its packed tarball, in the same `npm install`): started before
 * Medusa boots and awaited once the store is seeded, so the two overlap.
 */
async function prepareApp(): Promise<void> {
  cpSync(appSource, app, { recursive: true, filter: (src) => !/[\\/](node_modules|\.next)$/.test(src) })
  const tarball = await timed("npm pack of the kit", async () => {
    const name = (await run("npm", ["pack", "--silent", "--pack-destination", work, kitDir])).trim().split("\n").pop()!
    return path.join(work, name)
  })
  const manifest = JSON.parse(readFileSync(path.join(app, "package.json"), "utf8"))
  if (!manifest.dependencies?.[KIT]) throw new Error(`integration-tests/storefront-next/package.json does not depend on ${KIT}`)
  manifest.dependencies[KIT] = `file:${tarball}`
  writeFileSync(path.join(app, "package.json"), JSON.stringify(manifest, null, 2))
  await timed("npm install", () => run("npm", ["install", "--no-package-lock", "--loglevel=error"]))
  // outside the repository nothing resolves to its React 18: the app has its own React 19
  const react = JSON.parse(readFileSync(path.join(app, "node_modules", "react", "package.json"), "utf8"))
  if (!react.version.startsWith("19.")) throw new Error(`the app installed React ${react.version}, not React 19`)
}

type TypeCheck = { resolution: string; errors: string }

/**
 * `tsc --noEmit` of the app's strict tsconfig, after `next build` so that Next's generated route
 * types (.next/types, which the build itself skips: ignoreBuildErrors as in the starter) are
 * checked too; with the starter's moduleResolution "node" (the kit's `/react` entry through
 * typesVersions) and with "bundler" (through exports), in parallel.
 */
function typeCheck(): Promise<TypeCheck[]> {
  const tsc = path.join(app, "node_modules", ".bin", "tsc")
  const check = (resolution: string, args: string[]): Promise<TypeCheck> =>
    run(tsc, ["--noEmit", "--incremental", "false", ...args]).then(
      () => ({ resolution, errors: "" }),
      (error: Error) => ({ resolution, errors: error.message })
    )
  return timed("tsc --noEmit, node and bundler resolution in parallel (during the first scenario)", () =>
    Promise.all([check("node (the starter's)", []), check("bundler", ["--module", "esnext", "--moduleResolution", "bundler"])])
  )
}

let storefrontUrl = ""
let prepared: Promise<void>
const savedEnv = { STORE_CORS: process.env.STORE_CORS, PAYIN_DEMO_STOREFRONT_URL: process.env.PAYIN_DEMO_STOREFRONT_URL }

beforeAll(async () => {
  storefrontUrl = `http://localhost:${await freePort()}`
  // read by the test app's medusa-config when it boots: CORS, and the provider's allowedRedirectOrigins
  process.env.STORE_CORS = storefrontUrl
  process.env.PAYIN_DEMO_STOREFRONT_URL = storefrontUrl
  prepared = prepareApp()
  prepared.catch(() => undefined) // awaited (and reported) below
})
afterAll(() => {
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
  rmSync(work, { recursive: true, force: true })
  console.log(`[next-storefront] phases (s):\n${phases.map(([name, s]) => `  ${name}: ${s.toFixed(1)}`).join("\n")}`)
})

let sandbox: RunningSandbox
sandboxForApp(KEY, { requisitesPerMethod: 1000 }, (s) => (sandbox = s))

appSpec(({ api, seedStore, getContainer, sql, ledger }) =>
  // a block of its own: its afterAll stops Next and Chromium before the runner shuts Medusa down
  // (their keep-alive connections would hold that shutdown until it times out)
  describe("Next.js storefront", () => {
    let typeChecks: Promise<TypeCheck[]>
    let next: ChildProcess | undefined
    let nextLog = ""
    let browser: Browser
    let publishableKey: string
    const contexts: BrowserContext[] = []
    const booted = Date.now()

    beforeAll(async () => {
      phases.push(["Medusa test app up, from the spec's start (in parallel with the install)", (Date.now() - booted) / 1000])
      const backendUrl = api.defaults.baseURL as string
      sandbox.updateMerchant({ webhookUrl: `${backendUrl}/hooks/payin/default` })
      // seeded before the runner's template snapshot: every test starts from this store
      const seed = await seedStore(["pp_payin_default", "pp_system_default"])
      publishableKey = seed.publishableKey
      const waited = Date.now()
      await prepared
      phases.push(["waiting for the install after Medusa was up", (Date.now() - waited) / 1000])

      // NEXT_PUBLIC_ variables are inlined by `next build`: the key must be known now
      const env = childEnv({ NODE_ENV: "production", NEXT_PUBLIC_MEDUSA_BACKEND_URL: backendUrl, NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY: publishableKey })
      const nextBin = path.join(app, "node_modules", ".bin", "next")
      await timed("next build", () => run(nextBin, ["build"], env))
      typeChecks = typeCheck()
      typeChecks.catch(() => undefined) // awaited in the last test
      await timed("next start (until it answers)", async () => {
        const port = new URL(storefrontUrl).port
        next = spawn(nextBin, ["start", "-p", port], { cwd: app, env, stdio: ["ignore", "pipe", "pipe"] })
        next.stdout!.on("data", (d) => (nextLog += d))
        next.stderr!.on("data", (d) => (nextLog += d))
        await eventually(
          "next start answers",
          async () => {
            if (next!.exitCode !== null) throw new Error(`next start exited ${next!.exitCode}:\n${nextLog}`)
            return fetch(`${storefrontUrl}/ru`, { redirect: "manual" }).then(
              (r) => r.status === 200,
              () => false
            )
          },
          60_000,
          200
        )
      })
      browser = await timed("Chromium (installed when absent) and launch", async () => {
        ensureChromium()
        return launchBrowser()
      })
    })

    afterAll(async () => {
      await Promise.all(contexts.map((c) => c.close().catch(() => undefined)))
      await browser?.close().catch(() => undefined)
      if (next && next.exitCode === null) {
        const gone = new Promise((r) => next!.once("exit", r))
        next.kill("SIGTERM")
        await gone
      }
    })

    /** The pay-in as the store API shows it (what the app's server reads too). */
    const status = async (query: string): Promise<PayinStatusResponse> => {
      const res = await api.get(`/store/payin/status?${query}`, { headers: { "x-publishable-api-key": publishableKey } })
      return res.data
    }
    const control = async (method: "POST" | "PUT", route: string, body?: unknown) => {
      const res = await fetch(`${sandbox.url}${route}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      if (!res.ok) throw new Error(`sandbox ${method} ${route}: ${res.status} ${await res.text()}`)
    }

    /** A shopper's tab; `visited` lists every page the tab requested, redirects included. */
    async function shopper(): Promise<{ page: Page; context: BrowserContext; visited: string[] }> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US" })
      contexts.push(context)
      const page = await context.newPage()
      page.setDefaultTimeout(30_000)
      const visited: string[] = []
      page.on("request", (request) => {
        if (request.isNavigationRequest() && request.frame() === page.mainFrame()) visited.push(request.url())
      })
      return { page, context, visited }
    }

    /** Runs a scenario in a new shopper's tab; on failure adds a screenshot's path and the Next server's output. */
    async function scenario(name: string, fn: (tab: { page: Page; context: BrowserContext; visited: string[] }) => Promise<void>): Promise<void> {
      const started = Date.now()
      let page: Page | undefined
      try {
        const tab = await shopper()
        page = tab.page
        await fn(tab)
      } catch (error) {
        const file = path.join(os.tmpdir(), `payin-next-${name.replace(/\W+/g, "-")}.png`)
        await page?.screenshot({ path: file, fullPage: true }).catch(() => undefined)
        throw Object.assign(error as Error, {
          message: `${(error as Error).message}\n(screenshot ${file}; page ${page?.url()})\nnext start output:\n${nextLog.slice(-4000)}`,
        })
      } finally {
        phases.push([`scenario: ${name}`, (Date.now() - started) / 1000])
      }
    }

    const cartCookie = async (context: BrowserContext) =>
      (await context.cookies(storefrontUrl)).find((c) => c.name === "_medusa_cart_id" && c.value)?.value

    /** Product → cart → address → delivery → pay-in with this bank and method → "Continue to review". */
    async function toPayment(page: Page, choice: { bank?: string; method?: string }) {
      await page.goto(`${storefrontUrl}/ru`)
      await page.getByTestId("add-product-button").click()
      await page.waitForURL(/\/ru\/checkout$/)
      await page.locator('input[name="email"]').fill(`shopper-${Date.now().toString(36)}@payin.test`)
      await page.locator('input[name="shipping_address.first_name"]').fill("Ivan")
      await page.locator('input[name="shipping_address.last_name"]').fill("Petrov")
      await page.locator('input[name="shipping_address.address_1"]').fill("Tverskaya 1")
      await page.locator('input[name="shipping_address.city"]').fill("Moscow")
      await page.locator('input[name="shipping_address.postal_code"]').fill("101000")
      await page.getByTestId("submit-address-button").click()
      await page.locator('input[name="shipping_method_id"]').first().check()
      await page.getByTestId("submit-delivery-option-button").click()
      await page.locator('input[name="payment-method"][value="pp_payin_default"]').check()
      // the banks come from GET /store/payin/banks, read by the server for this cart
      if (choice.bank) await page.getByTestId("payin-bank-select").selectOption(choice.bank)
      if (choice.method) await page.getByTestId("payin-method-select").selectOption(choice.method)
    }

    async function continueToReview(page: Page) {
      await page.getByTestId("submit-payment-button").click()
      await page.getByTestId("submit-order-button").waitFor()
    }

    /** The kit's instructions (test id `payin-instructions`) in this state. */
    const instructions = (page: Page, state: string) => page.locator(`[data-testid="payin-instructions"][data-state="${state}"]`).waitFor()
    /** The order page heading's lines (test id `payin-order-heading`) once they say this outcome. */
    async function heading(page: Page, outcome: string): Promise<string> {
      const lines = page.locator(`[data-testid="payin-order-heading"][data-outcome="${outcome}"]`)
      await lines.waitFor()
      return (await lines.textContent())!
    }

    /** Buys through the storefront (bank vtb, account) up to the order page awaiting payment: the order's id. */
    async function placedAwaiting(page: Page): Promise<string> {
      await toPayment(page, { bank: "vtb", method: "account" })
      await continueToReview(page)
      await page.getByTestId("submit-order-button").click()
      await page.waitForURL(/\/ru\/order\/order_\w+\/confirmed$/)
      await instructions(page, "awaiting_payment")
      return orderIdOf(page)
    }

    const orderIdOf = (page: Page) => /\/order\/(order_\w+)\/confirmed$/.exec(new URL(page.url()).pathname)![1]
    const returned = (visited: string[], cartId: string) =>
      visited.some((url) => url === `${storefrontUrl}/ru/payin-return?cart_id=${cartId}`)

    it("buys, shows what to pay from the server, pays on the hosted Payment Page, returns through the route to a paid order", async () => {
      await scenario("pay after the order", async ({ page, context, visited }) => {
        await toPayment(page, { bank: "sberbank", method: "card" })
        await continueToReview(page)
        const cartId = (await cartCookie(context))!
        expect(cartId).toMatch(/^cart_/)
        await page.getByTestId("submit-order-button").click()
        await page.waitForURL(/\/ru\/order\/order_\w+\/confirmed$/)
        const orderId = orderIdOf(page)
        expect(await cartCookie(context)).toBeUndefined() // placeOrder() removed it

        // the instructions are in the server's HTML (initial from the kit's client, server-side)
        const html = await (await fetch(page.url())).text()
        expect(html).toMatch(/data-testid="payin-instructions"[^>]*data-state="awaiting_payment"/)
        expect(html).toMatch(/data-testid="payin-order-heading" data-outcome="awaiting"/)
        await instructions(page, "awaiting_payment")
        expect(await heading(page, "awaiting")).toBe("Thank you!Your order was placed and awaits your payment.")
        expect(await page.getByTestId("payin-instructions-status").getAttribute("data-state")).toBe("awaiting_payment")
        const { payin, order } = await status(`order_id=${orderId}`)
        expect(order).toMatchObject({ id: orderId, payment_status: "awaiting" })
        expect(payin).toMatchObject({ state: "awaiting_payment", bank: "sberbank", method: "card", amount: "1790.00", currency: "RUB" })
        expect(await page.locator('[data-payin="amount"]').textContent()).toContain("1,790.00")
        expect((await page.locator('[data-payin="requisite"]').textContent())!.replace(/\D/g, "")).toBe(payin!.requisite!.number)

        await page.getByTestId("payin-instructions").getByTestId("payin-payment-page-link").click()
        await page.waitForURL((url) => url.href.startsWith(sandbox.url))
        await page.locator("#paid").click()
        await page.waitForURL(new RegExp(`/ru/order/${orderId}/confirmed$`))
        expect(returned(visited, cartId)).toBe(true)
        await instructions(page, "paid")
        expect(await heading(page, "paid")).toBe("Thank you!Your order was placed and paid.")
        expect(await page.locator('[data-payin="requisite"]').count()).toBe(0)
        await eventually("the order captured", async () => (await status(`order_id=${orderId}`)).order?.payment_status === "captured", 30_000)
      })
    })

    it("pays on the hosted page before the order exists: the return route places the order, shown paid", async () => {
      await scenario("pay before the order", async ({ page, context, visited }) => {
        await toPayment(page, { bank: "tinkoff", method: "phone_number" })
        await continueToReview(page)
        const cartId = (await cartCookie(context))!
        // no webhook until the shopper is back, so the return route (not the webhook) places the order
        sandbox.updateMerchant({ webhookUrl: null })
        try {
          await page.getByTestId("payin-payment-page-link").click()
          await page.waitForURL((url) => url.href.startsWith(sandbox.url))
          await page.locator("#paid").click()
          await page.waitForURL(/\/ru\/order\/order_\w+\/confirmed$/)
        } finally {
          sandbox.updateMerchant({ webhookUrl: `${api.defaults.baseURL}/hooks/payin/default` })
        }
        const orderId = orderIdOf(page)
        expect(returned(visited, cartId)).toBe(true)
        expect(await cartCookie(context)).toBeUndefined() // the route removed it
        const placed = await status(`order_id=${orderId}`)
        expect(placed.cart_id).toBe(cartId)
        expect(placed.order?.payment_status).toBe("awaiting")

        // the service's callback arrives: the open page turns to paid by itself
        await control("POST", `/_sandbox/transactions/${placed.payin!.payin_id}/webhook`)
        await instructions(page, "paid")
        await heading(page, "paid") // the heading follows the instructions' poll
        await eventually("the order captured", async () => (await status(`order_id=${orderId}`)).order?.payment_status === "captured", 30_000)
      })
    })

    it("shows payin_requisites_unavailable as a readable message with its code; trying again works", async () => {
      await scenario("requisites unavailable", async ({ page }) => {
        await toPayment(page, {})
        await control("PUT", "/_sandbox/faults", [{ route: "POST /payment/trading/pay-in", status: 422, code: "REQUISITES_UNAVAILABLE", count: 1 }])
        await page.getByTestId("submit-payment-button").click()
        const error = page.getByTestId("payment-method-error-message")
        await error.waitFor()
        const text = (await error.textContent())!
        expect(text).toContain("(payin_requisites_unavailable)")
        expect(text).toMatch(/another bank or method/)
        expect(await page.getByTestId("submit-order-button").count()).toBe(0)
        await continueToReview(page)
        expect(await error.count()).toBe(0)
      })
    })

    it("an order left unpaid until the window ends shows as not paid, live and after a reload", async () => {
      await scenario("window ends unpaid", async ({ page }) => {
        const orderId = await placedAwaiting(page)
        const { payin } = await status(`order_id=${orderId}`)

        await control("POST", `/_sandbox/transactions/${payin!.payin_id}/expire`)
        await instructions(page, "expired")
        expect(await heading(page, "unpaid")).toMatch(/^Your order was not paid\.The payment window ended before a payment arrived\./)
        expect(await page.locator('[data-payin="requisite"]').count()).toBe(0)
        await eventually("the order canceled", async () => (await status(`order_id=${orderId}`)).order?.status === "canceled", 30_000)
        await page.reload()
        await instructions(page, "expired")
        expect(await heading(page, "unpaid")).toBe(
          "Your order was not paid.The payment window ended before a payment arrived. The order was canceled."
        )
        expect(await page.getByTestId("payin-payment-page-link").count()).toBe(0)
      })
    })

    it("pay again: the window ends unpaid, the shopper gets new details on the order page and pays: captured once; a grace period that ends cancels", async () => {
      const container = getContainer()
      const admin = await adminHeaders(container, api)
      await api.post("/admin/payin/settings/default", { payAgain: { enabled: true, graceHours: 1 } }, admin)
      /** An order placed through the storefront, its pay-in expired at the service: the page offers new details. */
      const expiredOrder = async (page: Page) => {
        const orderId = await placedAwaiting(page)
        const first = (await status(`order_id=${orderId}`)).payin!
        await control("POST", `/_sandbox/transactions/${first.payin_id}/expire`)
        await instructions(page, "expired")
        await page.getByTestId("payin-pay-again").waitFor()
        return { orderId, first }
      }
      try {
        await scenario("pay again", async ({ page }) => {
          const { orderId, first } = await expiredOrder(page)
          expect((await status(`order_id=${orderId}`)).order?.status).not.toBe("canceled")
          await page.getByTestId("payin-pay-again").dblclick()
          await instructions(page, "awaiting_payment")
          const second = (await status(`order_id=${orderId}`)).payin!
          expect(second.payin_id).not.toBe(first.payin_id)
          expect(await page.locator('[data-payin="requisite"]').count()).toBeGreaterThan(0)
          expect(await page.getByTestId("payin-pay-again").count()).toBe(0)
          expect(await ledger.rows({ order_id: orderId })).toHaveLength(2) // the double click made one pay-in
          await control("POST", `/_sandbox/transactions/${second.payin_id}/pay`)
          await instructions(page, "paid")
          await eventually("the order captured", async () => (await status(`order_id=${orderId}`)).order?.payment_status === "captured", 30_000)
          const { data } = await (container.resolve("query") as any).graph({
            entity: "order",
            fields: ["status", "total", "payment_collections.payments.captures.amount"],
            filters: { id: orderId },
          })
          const captures = data[0].payment_collections.flatMap((c: any) => c.payments.flatMap((p: any) => p.captures))
          expect(captures.map((c: any) => Number(c.amount))).toEqual([Number(data[0].total)])
          expect(data[0].status).not.toBe("canceled")
        })
        await scenario("pay again, grace period over", async ({ page }) => {
          const { orderId } = await expiredOrder(page)
          await sql(
            `update payin_transaction set pay_again_until = now() - interval '1 second',
               next_effect_at = case when effect_pending is not null then now() - interval '1 second' end
             where order_id = ?`,
            [orderId]
          )
          await reconcilePayins(container, { olderThanSeconds: 0 })
          await eventually("the order canceled", async () => (await status(`order_id=${orderId}`)).order?.status === "canceled", 30_000)
          await page.reload()
          await instructions(page, "expired")
          expect(await heading(page, "unpaid")).toMatch(/The order was canceled\.$/)
          expect(await page.getByTestId("payin-pay-again").count()).toBe(0)
        })
      } finally {
        await api.post("/admin/payin/settings/default", { payAgain: { enabled: false } }, admin)
      }
    })

    it("type-checks strictly with the kit's declarations and Next's route types (moduleResolution \"node\" as in the starter, and \"bundler\")", async () => {
      for (const check of await typeChecks) {
        expect(check).toEqual({ resolution: check.resolution, errors: "" })
      }
    })
  })
)
