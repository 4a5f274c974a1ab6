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
// Accessibility: axe's WCAG 2.1 A/AA rules on the kit's parts in every state reached (./axe.ts), a
// purchase by keyboard alone, a countdown run to its end as a screen reader hears it, pay again by keyboard.
import { ChildProcess, spawn } from "child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs"
import os from "os"
import path from "path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import type { RunningSandbox } from "../../src/sandbox"
import type { PayinStatusResponse } from "../../src/storefront/types"
import { ensureChromium, launchBrowser } from "../support/chromium"
import { expectAccessible } from "./axe"
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

    /** Product → cart → address → delivery: the payment step is shown. */
    async function toPaymentStep(page: Page) {
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
    }

    /** The payment step → pay-in with this bank and method (then "Continue to review"). */
    async function toPayment(page: Page, choice: { bank?: string; method?: string }) {
      await toPaymentStep(page)
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

    /** The kit's parts of the order page: the instructions and the heading's lines. */
    const ORDER_PARTS = ['[data-testid="payin-instructions"]', '[data-testid="order-complete-container"] h1']
    /** axe's WCAG 2.1 A/AA rules on the kit's parts shown now (0 serious or critical); the app's own markup is not checked. */
    const accessible = (page: Page, state: string, include: string[] = ORDER_PARTS) => expectAccessible(page, { state: `Next storefront, ${state}`, include })

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
        await accessible(page, "payment step: bank and method", ['[data-testid="payin-choice"]'])
        await continueToReview(page)
        await accessible(page, "review: place order and the Payment Page link", ['[data-testid="submit-order-button"]', '[data-testid="payin-payment-page-link"]'])
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
        await accessible(page, "order page: instructions (card)")

        await page.getByTestId("payin-instructions").getByTestId("payin-payment-page-link").click()
        await page.waitForURL((url) => url.href.startsWith(sandbox.url))
        await page.locator("#paid").click()
        await page.waitForURL(new RegExp(`/ru/order/${orderId}/confirmed$`))
        expect(returned(visited, cartId)).toBe(true)
        await instructions(page, "paid")
        expect(await heading(page, "paid")).toBe("Thank you!Your order was placed and paid.")
        expect(await page.locator('[data-payin="requisite"]').count()).toBe(0)
        await accessible(page, "order page: paid")
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
        await accessible(page, "payment step: payin_requisites_unavailable", ['[data-testid="payin-choice"]', '[data-testid="payment-method-error-message"]'])
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
        await accessible(page, "order page: expired, live")
        await eventually("the order canceled", async () => (await status(`order_id=${orderId}`)).order?.status === "canceled", 30_000)
        await page.reload()
        await instructions(page, "expired")
        expect(await heading(page, "unpaid")).toBe(
          "Your order was not paid.The payment window ended before a payment arrived. The order was canceled."
        )
        expect(await page.getByTestId("payin-payment-page-link").count()).toBe(0)
        await accessible(page, "order page: expired and canceled, after a reload")
      })
    })

    it("pay again: the window ends unpaid, the shopper gets new details on the order page, pays them on the hosted Payment Page and returns to the paid order: captured once; a grace period that ends cancels", async () => {
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
        await scenario("pay again", async ({ page, visited }) => {
          const { orderId, first } = await expiredOrder(page)
          expect((await status(`order_id=${orderId}`)).order?.status).not.toBe("canceled")
          await page.getByTestId("payin-pay-again").dblclick()
          await instructions(page, "awaiting_payment")
          const { payin: second, cart_id: cartId } = await status(`order_id=${orderId}`)
          expect(second!.payin_id).not.toBe(first.payin_id)
          expect(await page.locator('[data-payin="requisite"]').count()).toBeGreaterThan(0)
          expect(await page.getByTestId("payin-pay-again").count()).toBe(0)
          expect(await ledger.rows({ order_id: orderId })).toHaveLength(2) // the double click made one pay-in
          // the new details paid on the hosted Payment Page: back through the return route the first session named
          await page.getByTestId("payin-instructions").getByTestId("payin-payment-page-link").click()
          await page.waitForURL((url) => url.href.startsWith(`${sandbox.url}/pay/${second!.payin_id}`))
          await page.locator("#paid").click()
          await page.waitForURL(new RegExp(`/ru/order/${orderId}/confirmed$`))
          expect(returned(visited, cartId!)).toBe(true)
          await instructions(page, "paid")
          expect(await heading(page, "paid")).toBe("Thank you!Your order was placed and paid.")
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

    /** Presses Tab (Shift+Tab with `back`) until the focus is on `selector`; returns the presses. */
    async function tabTo(page: Page, selector: string, { back = false, max = 40 } = {}): Promise<number> {
      for (let presses = 1; presses <= max; presses++) {
        await page.keyboard.press(back ? "Shift+Tab" : "Tab")
        if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return presses
      }
      throw new Error(`${max} presses of ${back ? "Shift+Tab" : "Tab"} did not reach ${selector}`)
    }
    /** The focused element, and whether its focus shows (matches :focus-visible with an outline). */
    const focused = (page: Page) =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null
        if (!el || el === document.body) return null
        const style = getComputedStyle(el)
        return {
          testId: el.getAttribute("data-testid"),
          payin: el.getAttribute("data-payin"),
          copyTarget: el.getAttribute("data-copy-target"),
          visible: el.matches(":focus-visible") && style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0,
        }
      })
    /** The focused <select>'s option, moved to with the arrow keys (a closed select changes without a popup). */
    async function arrowTo(page: Page, value: string, max = 20) {
      for (let presses = 0; presses <= max; presses++) {
        if ((await page.evaluate(() => (document.activeElement as HTMLSelectElement).value)) === value) return
        await page.keyboard.press("ArrowDown")
      }
      throw new Error(`the arrow keys never chose "${value}"`)
    }

    it("a keyboard-only purchase: from the payment step, Tab, Shift+Tab, Space and Enter (arrows inside the selects) choose, order and copy, the focus always shown", async () => {
      await scenario("keyboard only", async ({ page, context }) => {
        await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: storefrontUrl })
        await toPaymentStep(page)
        const payinRadio = 'input[name="payment-method"][value="pp_payin_default"]'
        await page.locator(payinRadio).waitFor()
        // no mouse from here: the keyboard starts where the delivery form was sent from
        await page.getByTestId("submit-delivery-option-button").focus()
        await tabTo(page, 'input[name="payment-method"]', { max: 3 })
        // inside a radio group the arrow keys move between the options (only if the pay-in is not the first)
        for (let i = 0; i < 5 && !(await page.evaluate((s) => document.activeElement?.matches(s) ?? false, payinRadio)); i++) {
          await page.keyboard.press("ArrowDown")
        }
        await page.keyboard.press("Space")
        expect(await page.locator(payinRadio).isChecked()).toBe(true)
        expect((await focused(page))?.visible).toBe(true)

        // the kit's bank and method selects come next in the tab order, then "Continue to review"
        await page.keyboard.press("Tab")
        expect(await focused(page)).toMatchObject({ testId: "payin-bank-select", visible: true })
        await arrowTo(page, "vtb")
        await page.keyboard.press("Tab")
        expect(await focused(page)).toMatchObject({ testId: "payin-method-select", visible: true })
        await arrowTo(page, "account")
        await page.keyboard.press("Tab")
        expect(await focused(page)).toMatchObject({ testId: "submit-payment-button", visible: true })
        await page.keyboard.press("Enter")
        await page.getByTestId("submit-order-button").waitFor()
        await tabTo(page, '[data-testid="submit-order-button"]')
        expect((await focused(page))?.visible).toBe(true)
        await page.keyboard.press("Enter")
        await page.waitForURL(/\/ru\/order\/order_\w+\/confirmed$/)
        await instructions(page, "awaiting_payment")
        const { payin } = await status(`order_id=${orderIdOf(page)}`)
        expect(payin).toMatchObject({ state: "awaiting_payment", bank: "vtb", method: "account" })

        // the instructions: the amount's copy button, then the requisite's; Shift+Tab goes back
        await tabTo(page, '[data-payin="copy"]', { max: 10 })
        expect(await focused(page)).toMatchObject({ copyTarget: "amount", visible: true })
        await page.keyboard.press("Tab")
        expect(await focused(page)).toMatchObject({ copyTarget: "requisite", visible: true })
        const copyRequisite = page.locator('[data-payin="copy"][data-copy-target="requisite"]')
        await page.keyboard.press("Space")
        await page.locator('[data-payin="copy"][data-copy-target="requisite"][data-copied="true"]').waitFor()
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await copyRequisite.getAttribute("data-copy-value"))
        // its name still says what it copies, and the copy is announced politely
        const label = (await page.locator('.payin-field:has([data-payin="requisite"]) dt').textContent())!
        expect(await copyRequisite.getAttribute("aria-label")).toBe(`Copied: ${label}`)
        expect(await page.locator('.payin-field:has([data-payin="requisite"]) [data-payin="copy-status"]').textContent()).toBe(`Copied to the clipboard: ${label}`)
        await accessible(page, "order page: a requisite copied")
        await page.keyboard.press("Shift+Tab")
        expect(await focused(page)).toMatchObject({ copyTarget: "amount", visible: true })
        await page.keyboard.press("Enter")
        await page.locator('[data-payin="copy"][data-copy-target="amount"][data-copied="true"]').waitFor()
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("1790.00")
      })
    })

    it("a screen reader hears the countdown at coarse steps only, then the window's end and the expiry (a 90 s window, the page's clock run a second at a time); each state passes axe", async () => {
      const admin = await adminHeaders(getContainer(), api)
      // the store's payment window, which the page counts down; the sandbox keeps its own 15 minutes
      await api.post("/admin/payin/settings/default", { paymentWindowSeconds: 90 }, admin)
      try {
        await scenario("countdown to the end", async ({ page }) => {
          // The page's clock (Date, timers) is Playwright's: below it is run through the window a
          // second at a time instead of waiting for it. Time flows as usual until then.
          await page.clock.install()
          const orderId = await placedAwaiting(page)
          // The kit sets its clock by each status answer's server_time: that time is moved on by as
          // much as the page's clock was run ahead, as if the store's clock had run with it.
          await page.route(
            (url) => url.origin === storefrontUrl,
            async (route) => {
              if (route.request().method() !== "POST") return route.fallback()
              const response = await route.fetch()
              const body = await response.text()
              if (!body.includes('"server_time"')) return route.fulfill({ response, body })
              const ahead = (await page.evaluate(() => Date.now())) - Date.now()
              const headers = { ...response.headers() }
              delete headers["content-encoding"]
              delete headers["content-length"]
              return route.fulfill({
                response,
                headers,
                body: body.replace(/"server_time":"([^"]+)"/g, (_, iso: string) => `"server_time":"${new Date(Date.parse(iso) + ahead).toISOString()}"`),
              })
            }
          )
          // every text the countdown's live region takes, and how often the visible time changes meanwhile
          await page.evaluate(() => {
            const w = window as unknown as { said: string[]; ticks: number }
            w.said = []
            w.ticks = 0
            const region = document.querySelector('[data-payin="countdown-announcement"]')!
            new MutationObserver(() => w.said.push(region.textContent ?? "")).observe(region, { childList: true, characterData: true, subtree: true })
            const timer = document.querySelector('[data-payin="countdown"]')!
            new MutationObserver(() => w.ticks++).observe(timer, { attributes: true, attributeFilter: ["data-seconds"] })
          })
          const countdown = page.locator('[data-payin="countdown"]')
          const first = Number(await countdown.getAttribute("data-seconds"))
          // opened before the last minute: every coarse step is crossed below
          expect(first).toBeGreaterThan(60)
          for (let left = first - 1; left >= 0; left--) {
            // in quarters: a status answer moved by the clock's lead just before a step is off by
            // less than the kit's 1 s jitter allowance, so it never moves the countdown
            for (let quarter = 0; quarter < 4; quarter++) await page.clock.runFor(250)
            // each second drawn before the next (the countdown's announcer sees every value)
            await page.waitForFunction((n) => Number(document.querySelector('[data-payin="countdown"]')?.getAttribute("data-seconds")) <= n, left)
            if (left === 9) {
              await page.waitForFunction(() => document.querySelector('[data-payin="countdown-announcement"]')?.textContent === "10 seconds left")
              await accessible(page, "order page: the countdown near the end")
            }
          }
          const statusLine = page.getByTestId("payin-instructions-status")
          await page.locator('[data-testid="payin-instructions-status"][data-state="window_ended"]').waitFor()
          expect(await statusLine.getAttribute("role")).toBe("status")
          expect(await statusLine.textContent()).toBe("The payment window has ended. Checking the payment status…")
          expect(await page.locator('[data-payin="countdown-announcement"]').textContent()).toBe("")
          const { said, ticks } = await page.evaluate(() => {
            const w = window as unknown as { said: string[]; ticks: number }
            return { said: w.said, ticks: w.ticks }
          })
          const spoken = said.filter((text, i) => text && text !== said[i - 1])
          // the steps of the last minute only, while the visible time changed every second
          for (const text of spoken) expect(text).toMatch(/^(1 minute|30 seconds|10 seconds) left$/)
          expect(spoken).toEqual(["1 minute left", "30 seconds left", "10 seconds left"])
          expect(ticks).toBeGreaterThanOrEqual(first)
          expect(spoken.length).toBeLessThan(ticks)
          await accessible(page, "order page: the window ended, the outcome being checked")

          await control("POST", `/_sandbox/transactions/${(await status(`order_id=${orderId}`)).payin!.payin_id}/expire`)
          // the polls after the window's end are due within seconds of the page's clock: run them
          for (let i = 0; i < 60 && !(await page.locator('[data-testid="payin-instructions"][data-state="expired"]').count()); i++) {
            await page.clock.runFor(500)
            await page.waitForTimeout(50)
          }
          await instructions(page, "expired")
          expect(await statusLine.textContent()).toBe("Not paid: the payment window ended")
          await accessible(page, "order page: expired after the countdown")
        })
      } finally {
        await api.post("/admin/payin/settings/default", { paymentWindowSeconds: null }, admin)
      }
    })

    it("pay again by keyboard: offered, new details (the focus moves to the new status), a refusal (the focus moves to why); each state passes axe", async () => {
      const admin = await adminHeaders(getContainer(), api)
      await api.post("/admin/payin/settings/default", { payAgain: { enabled: true, graceHours: 1 } }, admin)
      try {
        await scenario("pay again, accessible", async ({ page }) => {
          const expiredOffered = async () => {
            const orderId = await placedAwaiting(page)
            await control("POST", `/_sandbox/transactions/${(await status(`order_id=${orderId}`)).payin!.payin_id}/expire`)
            await instructions(page, "expired")
            await page.getByTestId("payin-pay-again").waitFor()
          }
          await expiredOffered()
          await accessible(page, "order page: pay again offered")
          await tabTo(page, '[data-testid="payin-pay-again"]')
          expect((await focused(page))?.visible).toBe(true)
          await page.keyboard.press("Enter")
          await instructions(page, "awaiting_payment")
          expect(await page.getByTestId("payin-pay-again").count()).toBe(0)
          // the button left with the old details: the focus is on the new status, not back at the page's top
          await page.waitForFunction(() => document.activeElement?.getAttribute("data-payin") === "status")
          await accessible(page, "order page: new payment details")

          // refused: the store stops offering it while the page still does
          await expiredOffered()
          await api.post("/admin/payin/settings/default", { payAgain: { enabled: false } }, admin)
          await tabTo(page, '[data-testid="payin-pay-again"]')
          await page.keyboard.press("Enter")
          const refusal = page.getByTestId("payin-pay-again-error")
          await refusal.waitFor()
          expect(await refusal.getAttribute("role")).toBe("alert")
          expect(await refusal.textContent()).toMatch(/\(payin_(pay_again_off|order_canceled)\)$/)
          expect(await page.getByTestId("payin-pay-again").count()).toBe(0)
          await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "payin-pay-again-error")
          await accessible(page, "order page: pay again refused")
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
