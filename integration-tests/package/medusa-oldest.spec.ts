// The oldest Medusa the plugin supports (package.json peerDependencies ">=2.17.2 <3"), as a store
// gets it: a fresh store of exactly Medusa 2.17.2 (the packages `create-medusa-app` 2.17.2 puts in
// its backend, without the test tooling) with the plugin installed from its packed tarball and
// registered through `withPayin()` from "medusa-plugin-payin/config". Then, with that store's own
// CLI: `medusa db:migrate`, a seed run by `medusa exec` on 2.17.2's workflows, `medusa build`
// (the plugin's admin extensions must be in the bundle), `medusa start` from the build output, a
// checkout through the store API paid in the sandbox (running in this process) and captured by
// its signed webhook, and the plugin's admin API.
//
// The store shares nothing with the repository's 2.21.2 install; this process runs only the
// sandbox and plain HTTP. The npm install dominates the time (CI starts with an empty cache).
// 2.17.0 and 2.17.1 cannot complete a cart with this plugin: the `pending_authorization` payment
// session status first shipped in 2.17.2.
import { ChildProcess, execFileSync, spawn } from "child_process"
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "fs"
import os from "os"
import path from "path"
import { Client } from "pg"
import type { RunningSandbox } from "../../src/sandbox"
import { freePort } from "../support/net"
import { npmPack } from "../support/packing"
import { startTestSandbox } from "../support/sandbox"
import { MEDUSA_INTERNALS } from "../../src/medusa/check"

const MEDUSA = "2.17.2"
/** The @medusajs/ui that @medusajs/dashboard 2.17.2 pins. */
const MEDUSA_UI = "4.1.19"
const PROVIDER = "oldest"
const PROVIDER_ID = `pp_payin_${PROVIDER}`
const API_KEY = "oldest-store-key-0123456789"
const ADMIN = { email: "admin@payin.test", password: "payin-oldest-password" }

const root = path.resolve(__dirname, "..", "..")
const rootPkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"))

/** A 2.17.2 backend as create-medusa-app 2.17.2 makes it (medusajs/dtc-starter apps/backend), minus jest and type packages. */
const storePackage = (tarball: string) => ({
  name: "payin-oldest-store",
  private: true,
  dependencies: {
    "@medusajs/admin-sdk": MEDUSA,
    "@medusajs/admin-shared": MEDUSA,
    "@medusajs/caching": MEDUSA,
    "@medusajs/cli": MEDUSA,
    "@medusajs/dashboard": MEDUSA,
    "@medusajs/draft-order": MEDUSA,
    "@medusajs/framework": MEDUSA,
    "@medusajs/medusa": MEDUSA,
    "@medusajs/ui": MEDUSA_UI,
    "@tanstack/react-query": "5.64.2",
    "react-i18next": "13.5.0",
    "react-router-dom": "6.30.4",
    zod: "4.2.0",
    "medusa-plugin-payin": `file:./${tarball}`,
  },
  devDependencies: {
    "@swc/core": "^1.7.28",
    react: "^18.3.1",
    "react-dom": "^18.3.1",
    "ts-node": "^10.9.2",
    typescript: "^5.6.2",
    vite: "^5.4.14",
  },
  // create-medusa-app adds this for npm ("Cannot find module 'ajv/dist/core'" otherwise)
  overrides: { ajv: "^8.0.0" },
})

const medusaConfig = `import { defineConfig, loadEnv } from "@medusajs/framework/utils"
import { withPayin } from "medusa-plugin-payin/config"

loadEnv(process.env.NODE_ENV || "development", process.cwd())

module.exports = defineConfig(
  withPayin(
    {
      projectConfig: {
        databaseUrl: process.env.DATABASE_URL,
        http: {
          storeCors: "http://localhost:8000",
          adminCors: "http://localhost:9000",
          authCors: "http://localhost:9000",
          jwtSecret: "oldest-jwt-secret",
          cookieSecret: "oldest-cookie-secret",
        },
      },
    },
    { providers: [{ id: "${PROVIDER}", apiKey: process.env.PAYIN_API_KEY, baseUrl: process.env.PAYIN_BASE_URL }] }
  )
)
`

/** The starter's tsconfig.json. */
const tsconfig = {
  compilerOptions: {
    target: "ES2021",
    esModuleInterop: true,
    module: "Node16",
    moduleResolution: "Node16",
    emitDecoratorMetadata: true,
    experimentalDecorators: true,
    skipLibCheck: true,
    skipDefaultLibCheck: true,
    declaration: false,
    sourceMap: false,
    inlineSourceMap: true,
    outDir: "./.medusa/server",
    rootDir: "./",
    jsx: "react-jsx",
    forceConsistentCasingInFileNames: true,
    resolveJsonModule: true,
    checkJs: false,
    strictNullChecks: true,
  },
  "ts-node": { swc: true },
  include: ["**/*", ".medusa/types/*"],
  exclude: ["node_modules", ".medusa/server", ".medusa/admin", ".cache"],
}

/** `medusa exec` entry; the seed itself is the demo's (integration-tests/app/seed/demo-store.ts), copied. */
const seedScript = `import { writeFileSync } from "fs"
import type { ExecArgs } from "@medusajs/framework/types"
import { seedDemoStore } from "./demo-store"

export default async function seed({ container }: ExecArgs) {
  const result = await seedDemoStore(container, {
    providerIds: ["${PROVIDER_ID}"],
    adminEmail: process.env.SEED_ADMIN_EMAIL!,
    adminPassword: process.env.SEED_ADMIN_PASSWORD!,
  })
  writeFileSync(process.env.SEED_OUT!, JSON.stringify(result))
}
`

// --- processes ---------------------------------------------------------------------------------

const running = new Set<ChildProcess>()
const timings: Record<string, number> = {}

/** A detached process that ends `pid`'s process group if this test process dies without doing it. */
function watchdog(pid: number): ChildProcess {
  const child = spawn(process.execPath, [path.join(root, "integration-tests", "support", "watchdog.mjs"), String(process.pid), `group=${pid}`], {
    detached: true,
    stdio: "ignore",
  })
  child.unref()
  return child
}

function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return Promise.resolve()
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  try {
    process.kill(-child.pid, "SIGKILL")
  } catch {}
  return gone
}

type Started = { child: ChildProcess; log: () => string; exited: Promise<number | null> }

/** Starts `command` in its own process group (so afterAll can end it and whatever it spawned). */
function start(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Started {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
  running.add(child)
  const guard = watchdog(child.pid!)
  let log = ""
  child.stdout!.on("data", (d) => (log += d))
  child.stderr!.on("data", (d) => (log += d))
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      running.delete(child)
      guard.kill()
      resolve(code)
    })
  )
  return { child, log: () => log, exited }
}

/** Runs a command to its end; rejects with the tail of its output unless it exits 0. */
async function run(step: string, command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const started = Date.now()
  const proc = start(command, args, cwd, env)
  const code = await proc.exited
  timings[step] = Date.now() - started
  if (code !== 0) {
    throw new Error(`${step}: \`${[path.basename(command), ...args].join(" ")}\` exited ${code ?? proc.child.signalCode}:\n${proc.log().slice(-6000)}`)
  }
  return proc.log()
}

async function waitFor<T>(what: string, check: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

async function http(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  let data: any = text
  try {
    data = JSON.parse(text)
  } catch {}
  return { status: res.status, data, text }
}

/** Same, failing with the server's answer on anything but 2xx. */
async function ok(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await http(method, url, body, headers)
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${res.text.slice(0, 2000)}`)
  return res.data
}

// --- the store -----------------------------------------------------------------------------------

const store = mkdtempSync(path.join(os.tmpdir(), "payin-oldest-store-"))
chmodSync(store, 0o755)
const database = `payin_oldest_${Date.now().toString(36)}`
const db = () => ({
  host: process.env.DB_HOST ?? "localhost",
  port: Number(process.env.DB_PORT ?? 5432),
  user: process.env.DB_USERNAME ?? "postgres",
  password: process.env.DB_PASSWORD ?? "",
})
const databaseUrl = () => {
  const { host, port, user, password } = db()
  return `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/${database}`
}

let sandbox: RunningSandbox
let serverPort: number
let server: Started | undefined
let baseUrl: string
/** The output of the packaged check of Medusa's internals (run once, by the first of its tests). */
let checked: string | undefined
let seed: { regionId: string; publishableKey: string; shippingOptionId: string; productVariantId: string }
let adminToken: string

/** What a store's own shell would have: no jest or npm-script variables, no NODE_OPTIONS. */
function storeEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(NODE_OPTIONS|NODE_ENV|TEST_TYPE|JEST_WORKER_ID|DATABASE_URL|INIT_CWD)$|^npm_(lifecycle|package)_|^npm_config_(local_)?prefix$/.test(k)) continue
    env[k] = v
  }
  return {
    ...env,
    MEDUSA_DISABLE_TELEMETRY: "true",
    DATABASE_URL: databaseUrl(),
    PAYIN_API_KEY: API_KEY,
    PAYIN_BASE_URL: sandbox.url,
    ...extra,
  }
}

const medusa = path.join(store, "node_modules", ".bin", "medusa")
const installed = (name: string) => JSON.parse(readFileSync(path.join(store, "node_modules", name, "package.json"), "utf8"))

async function query<T = any>(sql: string, params: unknown[] = [], name = database): Promise<T[]> {
  const client = new Client({ ...db(), database: name })
  await client.connect()
  try {
    return (await client.query(sql, params)).rows
  } finally {
    await client.end()
  }
}

beforeAll(async () => {
  expect(store).not.toMatch(/dist/) // Medusa cannot boot from such a path
  sandbox = await startTestSandbox(API_KEY)
  serverPort = await freePort()
  baseUrl = `http://localhost:${serverPort}`
  sandbox.updateMerchant({ webhookUrl: `${baseUrl}/hooks/payin/${PROVIDER}` })
})

afterAll(async () => {
  const started = Date.now()
  await Promise.all([...running].map(killGroup))
  await sandbox?.close()
  await query(`drop database if exists "${database}" with (force)`, [], "postgres").catch(() => {})
  timings["clean-up"] = Date.now() - started
  // ~750 MB of node_modules: removed in the background (half a minute and more on a busy disk)
  spawn("rm", ["-rf", store], { detached: true, stdio: "ignore" }).unref()
  console.log(`[medusa-oldest] ${Object.entries(timings).map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`).join(", ")}`)
})

describe(`the plugin in a store of Medusa ${MEDUSA}, its oldest supported version`, () => {
  it(`declares ${MEDUSA} as the floor of every @medusajs peer range`, () => {
    const ranges = Object.entries<string>(rootPkg.peerDependencies).filter(([name]) => name.startsWith("@medusajs/") && name !== "@medusajs/ui")
    expect(ranges.length).toBeGreaterThan(0)
    for (const [name, range] of ranges) {
      expect([name, range]).toEqual([name, `>=${MEDUSA} <3`])
    }
  })

  it(`installs: exactly ${MEDUSA} and the plugin from its packed tarball`, async () => {
    if (!existsSync(path.join(root, ".medusa", "server", "medusa-plugin.config.js"))) {
      execFileSync("npm", ["run", "build"], { cwd: root, encoding: "utf8" })
    }
    const packed = path.basename(npmPack(store))
    writeFileSync(path.join(store, "package.json"), JSON.stringify(storePackage(packed), null, 2))
    writeFileSync(path.join(store, "medusa-config.ts"), medusaConfig)
    writeFileSync(path.join(store, "tsconfig.json"), JSON.stringify(tsconfig, null, 2))
    mkdirSync(path.join(store, "src", "scripts"), { recursive: true })
    copyFileSync(path.join(root, "integration-tests", "app", "seed", "demo-store.ts"), path.join(store, "src", "scripts", "demo-store.ts"))
    writeFileSync(path.join(store, "src", "scripts", "payin-seed.ts"), seedScript)

    await run("npm install", "npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], store, storeEnv())

    for (const name of ["medusa", "framework", "cli", "admin-sdk", "dashboard", "payment", "core-flows", "utils"]) {
      expect([name, installed(`@medusajs/${name}`).version]).toEqual([name, MEDUSA])
    }
    expect(installed("@medusajs/ui").version).toBe(MEDUSA_UI)
    const plugin = installed("medusa-plugin-payin")
    expect(plugin.version).toBe(rootPkg.version)
    // one copy of Medusa: the plugin uses the store's
    expect(existsSync(path.join(store, "node_modules", "medusa-plugin-payin", "node_modules", "@medusajs"))).toBe(false)
  }, 600_000)

  it("migrates the store's database, the plugin's module and provider included (medusa db:migrate)", async () => {
    await query(`create database "${database}"`, [], "postgres")
    await run("medusa db:migrate", medusa, ["db:migrate"], store, storeEnv())
    const [tables] = await query("select to_regclass('public.payin_transaction') as ledger")
    expect(tables.ledger).toBe("payin_transaction")
    const providers = await query("select id from payment_provider where is_enabled")
    expect(providers.map((p) => p.id)).toContain(PROVIDER_ID)
  }, 300_000)

  it(`seeds what a checkout needs, with ${MEDUSA}'s own workflows (medusa exec)`, async () => {
    const out = path.join(store, "seed.json")
    await run("medusa exec seed", medusa, ["exec", "./src/scripts/payin-seed.ts"], store, storeEnv({
      SEED_OUT: out,
      SEED_ADMIN_EMAIL: ADMIN.email,
      SEED_ADMIN_PASSWORD: ADMIN.password,
    }))
    seed = JSON.parse(readFileSync(out, "utf8"))
    expect(seed.publishableKey).toMatch(/^pk_/)
  }, 300_000)

  it("builds (medusa build): the plugin's admin routes are in the admin bundle", async () => {
    await run("medusa build", medusa, ["build"], store, storeEnv())
    const assets = path.join(store, ".medusa", "server", "public", "admin", "assets")
    const bundle = readdirSync(assets)
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(path.join(assets, f), "utf8"))
      .join("\n")
    // the Pay-in page and its settings page (route labels), and the settings page's API calls
    expect(bundle).toContain('"payin.menu"')
    expect(bundle).toContain('"payin.settingsLabel"')
    expect(bundle).toContain("/admin/payin/settings")
  }, 300_000)

  it("starts from the build output (medusa start, NODE_ENV=production)", async () => {
    const buildDir = path.join(store, ".medusa", "server")
    symlinkSync(path.join(store, "node_modules"), path.join(buildDir, "node_modules"))
    const started = Date.now()
    server = start(medusa, ["start", "--port", String(serverPort)], buildDir, storeEnv({ NODE_ENV: "production" }))
    await waitFor(
      "GET /health",
      async () => {
        if (server!.child.exitCode !== null) throw new Error(`medusa start exited ${server!.child.exitCode}:\n${server!.log().slice(-6000)}`)
        return (await http("GET", `${baseUrl}/health`).catch(() => ({ status: 0 }))).status === 200
      },
      120_000
    )
    timings["medusa start to /health"] = Date.now() - started
    const admin = await http("GET", `${baseUrl}/app`)
    expect(admin.status).toBe(200)
    expect(admin.text).toMatch(/<script[^>]+assets\/index-/)
  }, 180_000)

  it(`checks out with ${PROVIDER_ID}: the order awaits payment, the sandbox's signed webhook captures it`, async () => {
    const started = Date.now()
    const storeHeaders = { "x-publishable-api-key": seed.publishableKey }
    const address = { first_name: "Ivan", last_name: "Petrov", address_1: "Tverskaya 1", city: "Moscow", postal_code: "101000", country_code: "ru" }
    const { cart } = await ok("POST", `${baseUrl}/store/carts`, {
      region_id: seed.regionId,
      email: "shopper@payin.test",
      items: [{ variant_id: seed.productVariantId, quantity: 1 }],
      shipping_address: address,
      billing_address: address,
    }, storeHeaders)
    await ok("POST", `${baseUrl}/store/carts/${cart.id}/shipping-methods`, { option_id: seed.shippingOptionId }, storeHeaders)
    const { payment_collection } = await ok("POST", `${baseUrl}/store/payment-collections`, { cart_id: cart.id }, storeHeaders)
    const withSession = await ok("POST", `${baseUrl}/store/payment-collections/${payment_collection.id}/payment-sessions`, { provider_id: PROVIDER_ID }, storeHeaders)
    const session = withSession.payment_collection.payment_sessions.find((s: any) => s.provider_id === PROVIDER_ID)
    expect(session.status).toBe("pending")
    expect(session.data).toMatchObject({ payin_status: "active", requisite: { number: expect.any(String) } })
    const [payin] = sandbox.transactions().filter((t) => t.extra?.externalTransactionId === session.id)
    expect(payin.fiatAmount).toBe(session.data.amount)

    const completed = await ok("POST", `${baseUrl}/store/carts/${cart.id}/complete`, {}, storeHeaders)
    expect(completed.type).toBe("order")
    const orderId = completed.order.id
    // what 2.17.2 added: the session waits for the payment and the order is placed
    const [stored] = await query("select status from payment_session where id = $1", [session.id])
    expect(stored.status).toBe("pending_authorization")

    const login = await ok("POST", `${baseUrl}/auth/user/emailpass`, ADMIN)
    adminToken = login.token
    const order = async () =>
      (await ok("GET", `${baseUrl}/admin/orders/${orderId}?fields=id,total,payment_status,*payment_collections.payments.captures`, undefined, {
        authorization: `Bearer ${adminToken}`,
      })).order
    expect((await order()).payment_status).toBe("awaiting")

    const paid = await ok("POST", `${sandbox.url}/_sandbox/transactions/${payin.id}/pay`)
    expect(paid.status).toBe("closed")
    await sandbox.webhooksIdle()
    const delivered = sandbox.deliveries().filter((d) => d.transactionId === payin.id)
    expect(delivered.at(-1)).toMatchObject({ status: "closed", responseStatus: 200, url: `${baseUrl}/hooks/payin/${PROVIDER}` })
    expect(delivered.at(-1)!.signature).toBeTruthy()

    const captured = await waitFor("payment captured", async () => {
      const o = await order()
      return o.payment_status === "captured" ? o : null
    })
    const captures = captured.payment_collections.flatMap((c: any) => c.payments).flatMap((p: any) => p.captures)
    expect(captures).toHaveLength(1)
    expect(Number(captures[0].amount)).toBe(Number(captured.total))
    expect(Number(payin.fiatAmount)).toBe(Number(captured.total))
    timings.checkout = Date.now() - started
  }, 120_000)

  // src/medusa/README.md: each internal the plugin relies on, by name, on this version
  it.each(Object.keys(MEDUSA_INTERNALS))(`holds on ${MEDUSA}: %s (medusa exec …/scripts/check-medusa.js)`, async (internal) => {
    checked ??= await run("medusa exec check-medusa", medusa, ["exec", "./node_modules/medusa-plugin-payin/.medusa/server/src/scripts/check-medusa.js"], store, storeEnv()).catch(
      (error: Error) => error.message
    )
    const line = checked.split("\n").find((l) => l.includes(`payin medusa check: `) && l.includes(` ${internal}: `))
    expect(line).toMatch(new RegExp(`payin medusa check: ok +${internal.replace(/\./g, "\\.")}: `))
  }, 180_000)

  it("answers the plugin's admin API (GET /admin/payin/settings)", async () => {
    const unauthenticated = await http("GET", `${baseUrl}/admin/payin/settings`)
    expect(unauthenticated.status).toBe(401)
    const settings = await http("GET", `${baseUrl}/admin/payin/settings`, undefined, { authorization: `Bearer ${adminToken}` })
    expect(settings.status).toBe(200)
    expect(settings.data.providers.map((p: any) => p.id)).toEqual([PROVIDER])
  }, 60_000)
})
