#!/usr/bin/env node
// Verifies the storefront kit's dtc-starter guide on a real starter:
//
//   npm run verify:starter -- <dtc-starter checkout, bare git dir, or .tar/.tar.gz/.tgz archive>
//   node integration-tests/starter/verify-starter.mjs <same> [--keep] [--work DIR]
//
// As a developer following src/storefront/README.md would, in a fresh copy of the starter:
//  1. pnpm install with the starter's pinned pnpm (its "packageManager"; pnpm@10.11.1 through npx
//     when the installed pnpm is another version), then the three packages from their tarballs
//     (the plugin and the sandbox into apps/backend, the kit into apps/storefront; packed from
//     this repository's build, so run `npm run build` first);
//  2. `git apply` of the patch the installed kit ships (guides/dtc-starter.patch);
//  3. PostgreSQL (DATABASE_URL / DB_HOST, else the embedded one of integration-tests/support/
//     postgres.mjs), `medusa db:migrate` (the starter's seed, with pp_payin_default on its
//     region), an admin user, `medusa build`, then `medusa develop` and the sandbox's
//     `payin-sandbox` bin paired with it;
//  4. the storefront's `next build` (it reads the backend) and its strict `tsc --noEmit`;
//     `next start`;
//  5. Chromium (integration-tests/support/chromium.ts): a shopper whose cart has an item (added
//     through the store API) fills the starter's Addresses and Delivery steps, picks Bank
//     transfer, a bank and a method, places the order, sees the instructions and the "awaits
//     your payment" heading, pays on the sandbox's Payment Page and comes back through the return
//     route to a paid order, captured exactly once; then, with carts whose address and delivery
//     are set through the store API, payin_requisites_unavailable is shown with its code and a
//     retry works; an order left unpaid until the window ends shows as not paid, canceled, after
//     a reload too.
//
// It prints each phase's time, the time from the fresh copy to the paid order, and a summary;
// exit code 0 when everything passed. Ports 9000 (backend), 8000 (storefront) and 4010
// (sandbox), the starter's and the guide's defaults, must be free. Processes it started are
// stopped at the end (by their ids); --keep leaves the work folder for inspection.
import { execFileSync, spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import net from "node:net"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { packAll } from "../build/pack.mjs"
import { createDatabase, databaseUrl, externalDatabase, makeScratchDir, startEmbeddedPostgres } from "../support/postgres.mjs"

const root = fileURLToPath(new URL("../..", import.meta.url))
const PNPM_WANTED = "10.11.1"
const PORTS = { backend: 9000, storefront: 8000, sandbox: 4010 }
const SANDBOX_KEY = "sandbox_dev_key"
const ADMIN = { email: "admin@test.com", password: "supersecret" }
const COUNTRY = "dk"

// ---------------------------------------------------------------------------------------------
// Arguments, phases, processes

const args = process.argv.slice(2)
const keep = args.includes("--keep")
const workArg = args.includes("--work") ? args[args.indexOf("--work") + 1] : undefined
const source = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--work")
if (!source) {
  console.error("usage: verify-starter.mjs <dtc-starter checkout, bare git dir, or .tar/.tar.gz/.tgz archive> [--keep] [--work DIR]")
  process.exit(2)
}

const started = Date.now()
const phases = []
const results = []
const children = []
let stopPostgres = async () => {}
let browser

const log = (line) => console.log(`[verify-starter] ${line}`)
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`

async function phase(name, fn) {
  const t = Date.now()
  log(`${name}…`)
  try {
    return await fn()
  } finally {
    phases.push([name, Date.now() - t])
  }
}

function check(name, ok, detail = "") {
  results.push({ name, ok: !!ok, detail })
  log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? `: ${detail}` : ""}`)
  if (!ok) throw new Error(`${name}${detail ? `: ${detail}` : ""}`)
}

function env(extra = {}) {
  const e = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", npm_config_audit: "false", npm_config_fund: "false", ...extra }
  delete e.NODE_OPTIONS
  if (!("NODE_ENV" in extra)) delete e.NODE_ENV
  return e
}

/** Runs a command to its end; rejects with the tail of its output when it fails. */
function run(cmd, argv, { cwd, extraEnv = {}, timeoutMs = 20 * 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd, env: env(extraEnv), stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    const timer = setTimeout(() => child.kill("SIGTERM"), timeoutMs)
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (out += d))
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${argv.join(" ")} (in ${cwd}) exited ${code}:\n${out.slice(-8000)}`))
    })
  })
}

/** Starts a long-running process in its own process group; stopped at the end by its id. */
function start(name, cmd, argv, { cwd, extraEnv = {} }) {
  const child = spawn(cmd, argv, { cwd, env: env(extraEnv), stdio: ["ignore", "pipe", "pipe"], detached: true })
  const entry = { name, child, output: "" }
  const keepTail = (d) => (entry.output = (entry.output + d).slice(-20000))
  child.stdout.on("data", keepTail)
  child.stderr.on("data", keepTail)
  children.push(entry)
  return entry
}

async function stopChildren() {
  for (const { child } of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    const gone = new Promise((r) => child.once("exit", r))
    try {
      process.kill(-child.pid, "SIGTERM")
    } catch {}
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {}
    }, 10_000)
    await gone
    clearTimeout(timer)
  }
}

async function eventually(what, fn, timeoutMs = 60_000, everyMs = 500) {
  const until = Date.now() + timeoutMs
  let last
  while (Date.now() < until) {
    try {
      const value = await fn()
      if (value) return value
    } catch (error) {
      last = error
    }
    await new Promise((r) => setTimeout(r, everyMs))
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last.message})` : ""}`)
}

function portFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer()
    srv.once("error", () => resolve(false))
    srv.listen(port, "0.0.0.0", () => srv.close(() => resolve(true)))
  })
}

// ---------------------------------------------------------------------------------------------
// The starter

/** The guide's pinned commit, as README.md names it ("pinned to its commit **`9233262`**"). */
function pinnedCommit() {
  const readme = readFileSync(path.join(root, "src", "storefront", "README.md"), "utf8")
  const match = /pinned to its commit \*\*`([0-9a-f]{7,40})`\*\*/.exec(readme)
  if (!match) throw new Error("src/storefront/README.md names no pinned commit")
  return match[1]
}

/** A fresh copy of the starter in `dir`; returns its commit when the source says it. */
function copyStarter(from, dir) {
  const abs = path.resolve(from)
  if (!existsSync(abs)) throw new Error(`${abs} does not exist`)
  mkdirSync(dir, { recursive: true })
  if (statSync(abs).isFile()) {
    if (/\.zip$/.test(abs)) execFileSync("unzip", ["-q", abs, "-d", dir])
    else execFileSync("tar", ["-xf", abs, "-C", dir])
    // an archive of a folder (GitHub's "dtc-starter-<sha>/"): use that folder
    const inner = execFileSync("ls", ["-A", dir], { encoding: "utf8" }).trim().split("\n")
    if (inner.length === 1 && existsSync(path.join(dir, inner[0], "package.json"))) return { dir: path.join(dir, inner[0]), commit: null }
    return { dir, commit: null }
  }
  const isBare = existsSync(path.join(abs, "HEAD")) && existsSync(path.join(abs, "objects")) && !existsSync(path.join(abs, "package.json"))
  if (isBare || existsSync(path.join(abs, ".git"))) {
    const gitDir = isBare ? abs : path.join(abs, ".git")
    const commit = execFileSync("git", ["--git-dir", gitDir, "rev-parse", "HEAD"], { encoding: "utf8" }).trim()
    // the committed tree, exactly: what a fresh clone has
    execFileSync("sh", ["-c", `git --git-dir="${gitDir}" archive HEAD | tar -x -C "${dir}"`])
    return { dir, commit }
  }
  cpSync(abs, dir, { recursive: true, filter: (src) => !/[\\/](node_modules|\.next|\.medusa|\.turbo)$/.test(src) })
  return { dir, commit: null }
}

async function pnpmCommand() {
  try {
    const version = execFileSync("pnpm", ["--version"], { encoding: "utf8", env: env({ COREPACK_ENABLE_STRICT: "0" }) }).trim()
    if (version === PNPM_WANTED) return { cmd: "pnpm", pre: [], version }
    log(`pnpm ${version} is installed; the starter pins ${PNPM_WANTED}: using npx pnpm@${PNPM_WANTED}`)
  } catch {
    log(`no pnpm installed: using npx pnpm@${PNPM_WANTED}`)
  }
  return { cmd: "npx", pre: ["-y", `pnpm@${PNPM_WANTED}`], version: PNPM_WANTED }
}

// ---------------------------------------------------------------------------------------------
// Chromium: integration-tests/support/chromium.ts, transpiled once with the repository's esbuild

async function chromiumHelpers() {
  const { build } = await import("esbuild")
  const out = path.join(root, "node_modules", ".cache", "payin-verify-starter", "chromium.cjs")
  await build({
    entryPoints: [path.join(root, "integration-tests", "support", "chromium.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile: out,
    external: ["playwright-core"],
    logLevel: "silent",
  })
  const { createRequire } = await import("node:module")
  return createRequire(import.meta.url)(out)
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const pinned = pinnedCommit()
  for (const [name, port] of Object.entries(PORTS)) {
    if (!(await portFree(port))) throw new Error(`port ${port} (${name}) is in use: the guide's defaults must be free`)
  }
  const [pluginTgz, kitTgz, sandboxTgz] = await phase("pack the plugin, the kit and the sandbox (npm run build first)", async () => packAll(path.join(os.tmpdir(), "payin-verify-pack")))

  const work = workArg ? path.resolve(workArg) : mkdtempSync(path.join(os.tmpdir(), "payin-starter-"))
  if (work.includes("dist")) throw new Error(`the work folder ${work} contains "dist" (Medusa cannot boot from such a path): use --work`)
  const cleanup = () => {
    if (!keep && !workArg) rmSync(work, { recursive: true, force: true })
  }
  try {
    const copied = await phase("fresh copy of the starter", async () => copyStarter(source, path.join(work, "dtc-starter")))
    const fresh = Date.now()
    const starter = copied.dir
    const backend = path.join(starter, "apps", "backend")
    const storefront = path.join(starter, "apps", "storefront")
    if (copied.commit) {
      const same = copied.commit.startsWith(pinned)
      log(`starter commit ${copied.commit.slice(0, 7)}; the guide is pinned to ${pinned}${same ? "" : " (different: the guide may not apply)"}`)
      results.push({ name: `starter at the guide's pinned commit ${pinned}`, ok: same, detail: copied.commit.slice(0, 7) })
    }
    const pnpm = await pnpmCommand()
    const p = (argv, opts) => run(pnpm.cmd, [...pnpm.pre, ...argv], opts)

    await phase("pnpm install (the starter's lockfile)", () => p(["install", "--frozen-lockfile"], { cwd: starter }))
    await phase("pnpm add the packages from their tarballs", async () => {
      await p(["--filter", "@dtc/backend", "add", pluginTgz], { cwd: starter })
      await p(["--filter", "@dtc/backend", "add", "-D", sandboxTgz], { cwd: starter })
      await p(["--filter", "@dtc/storefront", "add", kitTgz], { cwd: starter })
    })

    const shipped = path.join(storefront, "node_modules", "medusa-plugin-payin-storefront", "guides", "dtc-starter.patch")
    await phase("git apply the kit's guides/dtc-starter.patch", async () => {
      check("the installed kit ships guides/dtc-starter.patch", existsSync(shipped))
      check(
        "the shipped patch is the repository's",
        readFileSync(shipped, "utf8") === readFileSync(path.join(root, "src", "storefront", "guides", "dtc-starter.patch"), "utf8")
      )
      const relative = path.relative(starter, shipped)
      await run("git", ["apply", "--check", relative], { cwd: starter })
      await run("git", ["apply", relative], { cwd: starter })
      check("git apply of the patch", true, relative)
    })

    // PostgreSQL
    const db = await phase("PostgreSQL", async () => {
      const external = externalDatabase()
      if (external) return external
      const scratch = await makeScratchDir("payin-starter-pg-")
      const pg = await startEmbeddedPostgres({ dataDir: path.join(scratch, "data") })
      stopPostgres = async () => {
        await pg.stop()
        rmSync(scratch, { recursive: true, force: true })
      }
      return pg.db
    })
    const dbName = `dtc_verify_${Date.now().toString(36)}`
    await createDatabase(db, dbName)

    const backendUrl = `http://localhost:${PORTS.backend}`
    const storefrontUrl = `http://localhost:${PORTS.storefront}`
    const sandboxUrl = `http://127.0.0.1:${PORTS.sandbox}`
    // the guide's step 2: .env from .env.template, with the database
    const template = readFileSync(path.join(backend, ".env.template"), "utf8")
    check("the backend's .env.template has the guide's PAYIN_ lines", /^PAYIN_API_KEY=sandbox_dev_key$/m.test(template) && /^PAYIN_BASE_URL=http:\/\/127\.0\.0\.1:4010$/m.test(template))
    writeFileSync(path.join(backend, ".env"), template.replace(/^DATABASE_URL=.*$/m, `DATABASE_URL=${databaseUrl(db, dbName)}`))

    await phase("medusa db:migrate (the starter's seed) and an admin user", async () => {
      await p(["exec", "medusa", "db:migrate"], { cwd: backend })
      await p(["exec", "medusa", "user", "-e", ADMIN.email, "-p", ADMIN.password], { cwd: backend })
    })
    await phase("backend build (medusa build)", () => p(["--filter", "@dtc/backend", "build"], { cwd: starter }))

    const medusa = start("medusa develop", pnpm.cmd, [...pnpm.pre, "exec", "medusa", "develop"], { cwd: backend })
    const sandbox = start(
      "payin-sandbox",
      pnpm.cmd,
      [...pnpm.pre, "exec", "payin-sandbox", "--api-key", SANDBOX_KEY, "--port", String(PORTS.sandbox), "--store-url", backendUrl],
      { cwd: backend }
    )
    await phase("backend and sandbox up", async () => {
      await eventually("the sandbox's listening line", async () => {
        if (sandbox.child.exitCode !== null) throw new Error(`payin-sandbox exited:\n${sandbox.output}`)
        return sandbox.output.includes("payin-sandbox listening on")
      })
      await eventually(
        "medusa develop answers",
        async () => {
          if (medusa.child.exitCode !== null) throw new Error(`medusa develop exited:\n${medusa.output.slice(-4000)}`)
          return (await fetch(`${backendUrl}/health`)).ok
        },
        300_000,
        1000
      )
    })

    // the admin's token and the seeded publishable key (admin: Settings → Publishable API Keys)
    const { token } = await (await fetch(`${backendUrl}/auth/user/emailpass`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ADMIN) })).json()
    const adminGet = async (route) => {
      const res = await fetch(`${backendUrl}${route}`, { headers: { authorization: `Bearer ${token}` } })
      if (!res.ok) throw new Error(`GET ${route}: ${res.status} ${await res.text()}`)
      return res.json()
    }
    const { api_keys } = await adminGet("/admin/api-keys?type=publishable")
    const publishableKey = api_keys[0].token
    const { regions } = await adminGet("/admin/regions?fields=id,name,*payment_providers")
    check(
      "the seeded region has pp_payin_default (the patched seed)",
      regions.some((r) => (r.payment_providers ?? []).some((pp) => pp.id === "pp_payin_default")),
      regions.map((r) => `${r.name}: ${(r.payment_providers ?? []).map((pp) => pp.id).join(", ")}`).join("; ")
    )

    // the guide's step 5
    const local = readFileSync(path.join(storefront, ".env.template"), "utf8")
      .replace(/^NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY=.*$/m, `NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY=${publishableKey}`)
      .replace(/^NEXT_PUBLIC_MEDUSA_BACKEND_URL=.*$/m, `NEXT_PUBLIC_MEDUSA_BACKEND_URL=${backendUrl}`)
      .replace(/^NODE_ENV=.*$/m, "") // next build and next start set it themselves
    check("the storefront's .env.template has NEXT_PUBLIC_MEDUSA_BACKEND_URL", local.includes(`NEXT_PUBLIC_MEDUSA_BACKEND_URL=${backendUrl}`))
    writeFileSync(path.join(storefront, ".env.local"), local)
    await phase("storefront build (next build)", () => p(["--filter", "@dtc/storefront", "build"], { cwd: starter, extraEnv: { NODE_ENV: "production" } }))
    await phase("storefront strict tsc --noEmit (after next build: with its route types)", async () => {
      const out = await p(["exec", "tsc", "--noEmit"], { cwd: storefront }).catch((e) => e.message)
      const errors = (out.match(/error TS\d+/g) ?? []).length
      check("strict tsc --noEmit of the storefront: 0 errors", errors === 0 && !/exited/.test(out), errors ? out.slice(-4000) : "")
    })

    const next = start("next start", pnpm.cmd, [...pnpm.pre, "start"], { cwd: storefront, extraEnv: { NODE_ENV: "production" } })
    await phase("storefront up (next start)", () =>
      eventually(
        "next start answers",
        async () => {
          if (next.child.exitCode !== null) throw new Error(`next start exited:\n${next.output}`)
          return (await fetch(`${storefrontUrl}/${COUNTRY}`, { redirect: "manual" })).status === 200
        },
        120_000,
        500
      )
    )

    // ------------------------------------------------------------------------------------------
    // The shopper

    const store = async (method, route, body) => {
      const res = await fetch(`${backendUrl}${route}`, {
        method,
        headers: { "x-publishable-api-key": publishableKey, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      })
      if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`)
      return res.json()
    }
    const control = async (method, route, body) => {
      const res = await fetch(`${sandboxUrl}${route}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      if (!res.ok) throw new Error(`sandbox ${method} ${route}: ${res.status} ${await res.text()}`)
    }
    const payinStatus = (query) => store("GET", `/store/payin/status?${query}`)

    const region = regions.find((r) => (r.payment_providers ?? []).some((pp) => pp.id === "pp_payin_default"))
    const { products } = await store("GET", `/store/products?region_id=${region.id}&limit=20&fields=*variants,*variants.calculated_price,+variants.inventory_quantity`)
    const variant = products.flatMap((prod) => prod.variants ?? []).find((v) => v.calculated_price && (v.manage_inventory === false || (v.inventory_quantity ?? 0) > 0))
    if (!variant) throw new Error("the starter's seed has no purchasable variant")

    /**
     * A cart with an item; unless `throughUi`, also the shopper's email, addresses and delivery
     * (what the starter's Addresses and Delivery steps set).
     */
    async function cartAtPayment(throughUi) {
      const { cart } = await store("POST", "/store/carts", { region_id: region.id })
      await store("POST", `/store/carts/${cart.id}/line-items`, { variant_id: variant.id, quantity: 1 })
      if (throughUi) return cart.id
      const address = { first_name: "Ida", last_name: "Jensen", address_1: "Nyhavn 1", city: "Copenhagen", postal_code: "1051", country_code: COUNTRY }
      await store("POST", `/store/carts/${cart.id}`, { email: `shopper-${Date.now().toString(36)}@payin.test`, shipping_address: address, billing_address: address })
      const { shipping_options } = await store("GET", `/store/shipping-options?cart_id=${cart.id}`)
      await store("POST", `/store/carts/${cart.id}/shipping-methods`, { option_id: shipping_options[0].id })
      return cart.id
    }

    const chromium = await chromiumHelpers()
    browser = await phase("Chromium", async () => {
      chromium.ensureChromium((line) => log(line))
      return chromium.launchBrowser()
    })

    async function shopper({ throughUi = false } = {}) {
      const cartId = await cartAtPayment(throughUi)
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US" })
      // the starter's cart cookie (httpOnly, SameSite=Strict), as its addToCart sets it
      await context.addCookies([{ name: "_medusa_cart_id", value: cartId, url: storefrontUrl, httpOnly: true, sameSite: "Strict" }])
      const page = await context.newPage()
      page.setDefaultTimeout(60_000)
      const visited = []
      page.on("request", (r) => {
        if (r.isNavigationRequest() && r.frame() === page.mainFrame()) visited.push(r.url())
      })
      // the store first, as a shopper would: its middleware sets the cache id cookie the starter's
      // cache tags (and so its revalidation after each checkout step) are keyed by
      await page.goto(`${storefrontUrl}/${COUNTRY}`)
      if (throughUi) {
        // the starter's Addresses and Delivery steps, unchanged by the guide
        await page.goto(`${storefrontUrl}/${COUNTRY}/checkout?step=address`)
        await page.getByTestId("shipping-first-name-input").fill("Ida")
        await page.getByTestId("shipping-last-name-input").fill("Jensen")
        await page.getByTestId("shipping-address-input").fill("Nyhavn 1")
        await page.getByTestId("shipping-postal-code-input").fill("1051")
        await page.getByTestId("shipping-city-input").fill("Copenhagen")
        await page.getByTestId("shipping-country-select").selectOption(COUNTRY)
        await page.getByTestId("shipping-email-input").fill(`shopper-${Date.now().toString(36)}@payin.test`)
        await page.getByTestId("submit-address-button").click()
        await page.waitForURL(/step=delivery/)
        await page.getByTestId("delivery-option-radio").filter({ hasNotText: "Pick up" }).first().click()
        await page.getByTestId("submit-delivery-option-button").click()
        await page.waitForURL(/step=payment/)
      } else {
        await page.goto(`${storefrontUrl}/${COUNTRY}/checkout?step=payment`)
      }
      await page.getByRole("radio", { name: /Bank transfer/ }).click()
      return { cartId, context, page, visited }
    }
    async function toReview(page) {
      await page.getByTestId("submit-payment-button").click()
      await page.waitForURL(/step=review/)
      await page.getByTestId("submit-order-button").waitFor()
    }
    const instructions = (page, state) => page.locator(`[data-testid="payin-instructions"][data-state="${state}"]`).waitFor()
    const heading = async (page, outcome) => {
      const lines = page.locator(`[data-testid="payin-order-heading"][data-outcome="${outcome}"]`)
      await lines.waitFor()
      return lines.textContent()
    }
    const orderIdOf = (page) => /\/order\/(order_\w+)\/confirmed$/.exec(new URL(page.url()).pathname)?.[1]
    async function scenario(name, fn) {
      let tab
      const t = Date.now()
      try {
        await fn((page) => (tab = page))
      } catch (error) {
        const shot = path.join(os.tmpdir(), `payin-starter-${name.replace(/\W+/g, "-")}.png`)
        await tab?.screenshot({ path: shot, fullPage: true }).catch(() => undefined)
        results.push({ name: `scenario: ${name}`, ok: false, detail: `${error.message} (screenshot ${shot}; page ${tab?.url()})` })
        throw error
      } finally {
        phases.push([`scenario: ${name}`, Date.now() - t])
      }
      results.push({ name: `scenario: ${name}`, ok: true, detail: "" })
    }

    let paidAt = 0
    await scenario("paid on the hosted Payment Page, captured once (address and delivery through the UI)", async (track) => {
      const { cartId, page, visited } = await shopper({ throughUi: true })
      track(page)
      await page.getByTestId("payin-bank-select").selectOption("wise")
      await page.getByTestId("payin-method-select").selectOption("account")
      await toReview(page)
      await page.getByTestId("submit-order-button").click()
      await page.waitForURL(/\/order\/order_\w+\/confirmed$/)
      const orderId = orderIdOf(page)
      await instructions(page, "awaiting_payment")
      check("the order page heading says the order awaits payment", (await heading(page, "awaiting")) === "Thank you!Your order was placed and awaits your payment.")
      const awaiting = await payinStatus(`order_id=${orderId}`)
      check("the pay-in has the chosen bank and method", awaiting.payin?.bank === "wise" && awaiting.payin?.method === "account", JSON.stringify({ bank: awaiting.payin?.bank, method: awaiting.payin?.method }))
      await page.getByTestId("payin-instructions").getByTestId("payin-payment-page-link").click()
      await page.waitForURL((url) => url.href.startsWith(sandboxUrl))
      await page.locator("#paid").click()
      await page.waitForURL(new RegExp(`/order/${orderId}/confirmed$`))
      check("came back through the return route", visited.some((u) => u.startsWith(`${storefrontUrl}/${COUNTRY}/payin-return?cart_id=${cartId}`)))
      await instructions(page, "paid")
      check("the order page heading says paid", (await heading(page, "paid")) === "Thank you!Your order was placed and paid.")
      paidAt = Date.now()
      const order = await eventually(
        "the order captured",
        async () => {
          const { order } = await adminGet(`/admin/orders/${orderId}?fields=id,payment_status,*payment_collections.payments.captures`)
          return order.payment_status === "captured" && order
        },
        60_000
      )
      const captures = order.payment_collections.flatMap((pc) => pc.payments ?? []).flatMap((pay) => pay.captures ?? [])
      check("the order is captured exactly once", captures.length === 1, `${captures.length} capture(s)`)
    })

    await scenario("payin_requisites_unavailable shown with its code; a retry works", async (track) => {
      const { page } = await shopper()
      track(page)
      await control("PUT", "/_sandbox/faults", [{ route: "POST /payment/trading/pay-in", status: 422, code: "REQUISITES_UNAVAILABLE", count: 1 }])
      await page.getByTestId("submit-payment-button").click()
      const error = page.getByTestId("payment-method-error-message")
      await error.waitFor()
      const text = await error.textContent()
      check("the error is readable and names its code", text.includes("(payin_requisites_unavailable)") && /another bank or method/.test(text), text)
      await toReview(page)
    })

    await scenario("left unpaid until the window ends: not paid, canceled", async (track) => {
      const { page } = await shopper()
      track(page)
      await toReview(page)
      await page.getByTestId("submit-order-button").click()
      await page.waitForURL(/\/order\/order_\w+\/confirmed$/)
      const orderId = orderIdOf(page)
      await instructions(page, "awaiting_payment")
      const { payin } = await payinStatus(`order_id=${orderId}`)
      await control("POST", `/_sandbox/transactions/${payin.payin_id}/expire`)
      await instructions(page, "expired")
      await heading(page, "unpaid")
      await eventually("the order canceled", async () => (await payinStatus(`order_id=${orderId}`)).order?.status === "canceled", 60_000)
      await page.reload()
      await instructions(page, "expired")
      const text = await heading(page, "unpaid")
      check("after a reload the heading says not paid, canceled", text === "Your order was not paid.The payment window ended before a payment arrived. The order was canceled.", text)
    })

    if (paidAt) log(`time from the fresh copy of the starter to the paid order: ${seconds(paidAt - fresh)}`)
    return { paidMs: paidAt ? paidAt - fresh : null }
  } finally {
    await browser?.close().catch(() => undefined)
    await stopChildren()
    await stopPostgres().catch(() => undefined)
    cleanup()
    if (keep || workArg) log(`work folder kept: ${work}`)
  }
}

main()
  .then(({ paidMs }) => {
    summary(paidMs)
    process.exit(results.every((r) => r.ok) ? 0 : 1)
  })
  .catch(async (error) => {
    console.error(`[verify-starter] ${error.stack ?? error}`)
    for (const { name, output } of children) console.error(`--- ${name} (last output)\n${output.slice(-3000)}`)
    summary(null)
    process.exit(1)
  })

function summary(paidMs) {
  console.log("\n[verify-starter] summary")
  for (const [name, ms] of phases) console.log(`  ${seconds(ms).padStart(9)}  ${name}`)
  for (const r of results) console.log(`  ${r.ok ? "PASS" : "FAIL"}  ${r.name}${r.detail && !r.ok ? `: ${r.detail}` : ""}`)
  if (paidMs) console.log(`  fresh copy of the starter → paid order: ${seconds(paidMs)}`)
  console.log(`  total: ${seconds(Date.now() - started)}; ${results.filter((r) => r.ok).length} passed, ${results.filter((r) => !r.ok).length} failed`)
}
