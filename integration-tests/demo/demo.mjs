// `npm run demo`: a Medusa store with this plugin, its admin and the sandbox payment service,
// on an embedded PostgreSQL (data kept in .demo/, or under /var/tmp when the OS user "postgres"
// cannot enter .demo/). Ctrl-C stops everything it started within seconds (a second Ctrl-C kills
// it at once); a second run reuses the data.
//
// Environment (all optional):
//   DATABASE_URL / DB_HOST...  use that PostgreSQL server instead of the embedded one
//   DEMO_PORT (9000)           Medusa's port;  DEMO_SANDBOX_PORT (4010) the sandbox's port
//   DEMO_STOREFRONT_PORT (8000) the demo storefront's port (0: any free port)
//   (ports that fetch refuses, the WHATWG "bad ports" such as 4190, are refused at once)
//   DEMO_ALLOWED_ORIGINS       comma-separated origins of outside storefronts: added to STORE_CORS
//                              and to the provider's allowedRedirectOrigins
//   STORE_CORS                 kept: the demo adds its own storefront's origin to it
//   DEMO_ADMIN_EMAIL / DEMO_ADMIN_PASSWORD  admin credentials (default admin@payin.demo / payin-demo)
//   DEMO_DB_NAME (payin_demo)  database name
//   DEMO_DIR (.demo)           where the demo keeps its data and writes demo.json
import { spawn } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import net from "node:net"
import { demoOrigins, demoPort, uniqueList } from "./demo-options.mjs"
import { describeError, listNotifications, makeSamples } from "./sample-payins.mjs"
import { startStorefront } from "./storefront/server.mjs"
import {
  createDatabase,
  databaseUrl,
  externalDatabase,
  killAllEmbeddedPostgres,
  makeScratchDir,
  postgresCanEnter,
  startDetachedWatchdog,
  startEmbeddedPostgres,
  stopAllEmbeddedPostgres,
} from "../support/postgres.mjs"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const appDir = path.join(root, "integration-tests", "app")
const demoDir = path.resolve(process.env.DEMO_DIR || path.join(root, ".demo"))
const medusaBin = path.join(root, "node_modules", ".bin", "medusa")
const started = Date.now()

// checked before anything starts (main() reports a thrown error and exits 1)
let settingsError = null
const checked = (fn, fallback) => {
  try {
    return fn()
  } catch (error) {
    settingsError ??= error
    return fallback
  }
}
const port = checked(() => demoPort("DEMO_PORT", process.env.DEMO_PORT, 9000), 9000)
const sandboxPortSetting = checked(() => demoPort("DEMO_SANDBOX_PORT", process.env.DEMO_SANDBOX_PORT, 4010, { allowZero: true }), 4010)
const storefrontPortSetting = checked(
  () => demoPort("DEMO_STOREFRONT_PORT", process.env.DEMO_STOREFRONT_PORT, 8000, { allowZero: true }),
  8000
)
const allowedOrigins = checked(() => demoOrigins("DEMO_ALLOWED_ORIGINS", process.env.DEMO_ALLOWED_ORIGINS), [])
const storeCors = checked(() => demoOrigins("STORE_CORS", process.env.STORE_CORS), [])
const dbName = process.env.DEMO_DB_NAME || "payin_demo"
const adminEmail = process.env.DEMO_ADMIN_EMAIL || "admin@payin.demo"
const adminPassword = process.env.DEMO_ADMIN_PASSWORD || "payin-demo"

/** Every process the demo started and that still runs, each the leader of its own process group. */
const children = new Set()
let pgServer = null
let storefront = null
let stopping = false

function log(message) {
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  console.log(`[demo ${seconds.padStart(5)}s] ${message}`)
}

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal) // the whole process group: medusa forks, npx/ts-node too
  } catch {
    try {
      child.kill(signal)
    } catch {}
  }
}

/**
 * Spawns a command as the leader of a new process group, so that the group can be stopped as one
 * (a Ctrl-C to the terminal does not reach it: shutdown() does), with a watchdog that ends the
 * group should this script be killed with SIGKILL. Nothing new starts once the demo is stopping.
 */
function spawnGroup(command, args, options) {
  if (stopping) {
    throw new Error("the demo is stopping")
  }
  const child = spawn(command, args, { ...options, detached: true })
  if (!child.pid) {
    return child // spawn failed: its "error" and "exit" events follow
  }
  children.add(child)
  const watchdog = startDetachedWatchdog([`group=${child.pid}`])
  child.on("exit", () => {
    children.delete(child)
    try {
      process.kill(-child.pid, "SIGKILL") // whatever the command left in its group
    } catch {}
    watchdog.kill()
  })
  return child
}

/** Runs a command to completion; its output is shown only when it fails. */
function run(command, args, { env, cwd = appDir, label }) {
  return new Promise((resolve, reject) => {
    const child = spawnGroup(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.on("error", (error) => reject(new Error(`${label} failed (${error.message})`)))
    child.on("exit", (code, signal) => {
      if (stopping) {
        // stopped part-way: not recorded as done, whatever its exit code
        reject(new Error("the demo is stopping"))
      } else if (code === 0) {
        resolve(output)
      } else {
        process.stderr.write(output)
        reject(new Error(`${label} failed (${signal ?? `exit ${code}`})`))
      }
    })
  })
}

/** Starts a long-running command in its own process group (medusa develop forks children). */
function startService(command, args, { env, cwd = appDir, name, onLine }) {
  const child = spawnGroup(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
  const forward = (stream, out) => {
    let buffer = ""
    stream.on("data", (chunk) => {
      buffer += chunk
      let nl
      while ((nl = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        onLine?.(line)
        out.write(`[${name}] ${line}\n`)
      }
    })
  }
  forward(child.stdout, process.stdout)
  forward(child.stderr, process.stderr)
  child.on("error", (error) => {
    if (!stopping) {
      log(`${name} could not be started (${error.message}); stopping the demo`)
      shutdown(1)
    }
  })
  child.on("exit", (code, signal) => {
    if (!stopping) {
      log(`${name} exited (${signal ?? `exit ${code}`}); stopping the demo`)
      shutdown(1)
    }
  })
  return child
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Waits until `done()` or `ms` passed. */
async function until(done, ms) {
  const deadline = Date.now() + ms
  while (!done() && Date.now() < deadline) {
    await sleep(50)
  }
}

/** SIGKILL for everything still running, at once (a second Ctrl-C, or a shutdown that overran). */
function killEverything() {
  for (const child of children) {
    signalGroup(child, "SIGKILL")
  }
  killAllEmbeddedPostgres()
}

/**
 * Stops everything the demo started, whatever stage it is in, within about 13 s even when a
 * process ignores SIGTERM: the services' process groups get SIGTERM, and SIGKILL after 5 s; then
 * PostgreSQL a fast shutdown (SIGINT), escalated the same way. Nothing here waits unbounded, and a
 * timer ends it all after 15 s whatever happens.
 */
async function shutdown(code = 0) {
  if (stopping) {
    return
  }
  stopping = true
  log("stopping…")
  setTimeout(() => {
    log("still stopping after 15 s: killing what is left")
    killEverything()
    process.exit(code)
  }, 15_000)
  for (const child of children) {
    signalGroup(child, "SIGTERM")
  }
  const storefrontClosed = storefront ? storefront.close().catch(() => {}) : Promise.resolve()
  await until(() => children.size === 0, 5000)
  if (children.size) {
    log(`${children.size} process group(s) still running after 5 s: SIGKILL`)
    for (const child of children) {
      signalGroup(child, "SIGKILL")
    }
    await until(() => children.size === 0, 1000)
  }
  await stopAllEmbeddedPostgres({ graceMs: 5000, log })
  await Promise.race([storefrontClosed, sleep(500)])
  log("stopped")
  process.exit(code)
}

let signals = 0
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (++signals > 1) {
      // a second Ctrl-C: no more waiting
      log(`${signal} again: killing everything`)
      killEverything()
      process.exit(130)
    }
    shutdown(0)
  })
}

async function waitForHealth(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline && !stopping) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) })
      if (res.ok) {
        return
      }
    } catch {}
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000}s`)
}

function portFree(port) {
  return new Promise((resolve) => {
    const probe = net.createServer()
    probe.once("error", () => resolve(false))
    probe.listen(port, () => probe.close(() => resolve(true)))
  })
}

function readJson(file, fallback) {
  try {
    return JSON.parse(readFileSync(file, "utf8"))
  } catch {
    return fallback
  }
}

/** Changes when Medusa or any migration of the plugin changes: then `db:migrate` runs again. */
function schemaFingerprint() {
  const hash = createHash("sha256")
  hash.update(JSON.parse(readFileSync(path.join(root, "node_modules", "@medusajs", "medusa", "package.json"), "utf8")).version)
  const modules = path.join(root, "src", "modules")
  for (const mod of readdirSync(modules).sort()) {
    const dir = path.join(modules, mod, "migrations")
    if (existsSync(dir)) {
      for (const file of readdirSync(dir).sort()) {
        hash.update(`${mod}/${file}:`).update(readFileSync(path.join(dir, file)))
      }
    }
  }
  hash.update(readFileSync(path.join(appDir, "medusa-config.ts")))
  return hash.digest("hex").slice(0, 16)
}

function shortPath(file) {
  const relative = path.relative(root, file)
  return relative.startsWith("..") ? file : relative
}

/**
 * Where the embedded cluster keeps its data: DEMO_DIR/pg, unless the OS user "postgres" (the server
 * runs as it when the demo runs as root) cannot enter DEMO_DIR, e.g. a checkout in root's home.
 * Then a folder under /var/tmp, recorded in state.json and reused by the next runs.
 */
async function embeddedDataDir(state) {
  const recorded = state.pgDataDir
  if (recorded && existsSync(path.dirname(recorded)) && postgresCanEnter(path.dirname(recorded))) {
    return recorded
  }
  delete state.pgDataDir
  if (postgresCanEnter(demoDir)) {
    return path.join(demoDir, "pg")
  }
  const parent = await makeScratchDir("payin-demo-pg-", { persistent: true })
  state.pgDataDir = path.join(parent, "pg")
  writeFileSync(path.join(demoDir, "state.json"), JSON.stringify(state, null, 2), { mode: 0o600 })
  log(`the OS user "postgres" cannot enter ${shortPath(demoDir)}: PostgreSQL keeps the demo's data in ${state.pgDataDir}`)
  return state.pgDataDir
}

async function main() {
  if (settingsError) throw settingsError
  mkdirSync(demoDir, { recursive: true })
  const state = readJson(path.join(demoDir, "state.json"), {})
  state.sandboxApiKey ??= `sandbox_${randomBytes(16).toString("hex")}`
  // the secret that encrypts an API key saved from the admin (kept with the demo's data)
  state.encryptionKey ??= randomBytes(32).toString("base64")
  writeFileSync(path.join(demoDir, "state.json"), JSON.stringify(state, null, 2), { mode: 0o600 })

  // 1. PostgreSQL
  let db = externalDatabase()
  if (db) {
    log(`using PostgreSQL at ${db.DB_HOST}:${db.DB_PORT}`)
  } else {
    const dataDir = await embeddedDataDir(state)
    pgServer = await startEmbeddedPostgres({
      dataDir,
      persistent: true,
      log: (line) => (/copying the PostgreSQL binaries/.test(line) ? log(line) : undefined),
    })
    db = pgServer.db
    if (pgServer.created) {
      // a new cluster (first run, or its folder was deleted): nothing is migrated, seeded or sampled in it
      for (const key of Object.keys(state.migrated ?? {})) {
        if (key.startsWith("embedded:")) {
          delete state.migrated[key]
        }
      }
      for (const key of ["seededDatabase", "samplesDatabase"]) {
        if (state[key]?.startsWith("embedded:")) {
          delete state[key]
        }
      }
    }
    log(`embedded PostgreSQL on port ${db.DB_PORT} (data in ${shortPath(dataDir)})`)
  }
  await createDatabase(db, dbName)

  // 2. The sandbox payment service, pointed at the store's webhook route
  const sandboxPort = sandboxPortSetting
  const webhookUrl = `http://localhost:${port}/hooks/payin/default`
  const sandboxUrl = await new Promise((resolve, reject) => {
    const sandbox = startService(
      process.execPath,
      [
        "-r",
        "ts-node/register/transpile-only",
        path.join(root, "src", "sandbox", "cli.ts"),
        "--port",
        String(sandboxPort),
        "--host",
        "127.0.0.1",
        "--api-key",
        state.sandboxApiKey,
        "--webhook-url",
        webhookUrl,
        "--data",
        path.join(demoDir, "sandbox-data.json"),
      ],
      {
        cwd: root,
        env: { ...process.env, TS_NODE_PROJECT: path.join(root, "tsconfig.json") },
        name: "sandbox",
        onLine: (line) => {
          const match = /^payin-sandbox listening on (http:\/\/\S+)$/.exec(line.trim())
          if (match) {
            resolve(match[1])
          }
        },
      }
    )
    sandbox.on("exit", () => reject(new Error("the sandbox did not start")))
  })
  log(`sandbox payment service at ${sandboxUrl}`)

  const env = {
    ...process.env,
    ...db,
    DATABASE_URL: databaseUrl(db, dbName),
    MEDUSA_DISABLE_TELEMETRY: "true",
    NODE_ENV: "development",
    PAYIN_API_KEY: state.sandboxApiKey,
    PAYIN_BASE_URL: sandboxUrl,
    PAYIN_ENCRYPTION_KEY: process.env.PAYIN_ENCRYPTION_KEY || state.encryptionKey,
  }

  // 3. Schema and seed data, each only when this database does not have them yet
  const dbIdentity = pgServer ? `embedded:${dbName}` : `${db.DB_HOST}:${db.DB_PORT}/${dbName}`
  const schema = schemaFingerprint()
  if (state.migrated?.[dbIdentity] !== schema) {
    log("migrating the database…")
    await run(medusaBin, ["db:migrate"], { env, label: "medusa db:migrate" })
    state.migrated = { ...(state.migrated ?? {}), [dbIdentity]: schema }
    writeFileSync(path.join(demoDir, "state.json"), JSON.stringify(state, null, 2), { mode: 0o600 })
  } else {
    log("database schema is up to date")
  }
  const seedFile = path.join(demoDir, "seed.json")
  const seededDb = state.seededDatabase === dbIdentity
  if (!seededDb || !existsSync(seedFile)) {
    log("seeding the demo store…")
    await run(medusaBin, ["exec", "./seed/run-demo-seed.ts"], {
      env: { ...env, DEMO_SEED_OUT: seedFile, DEMO_ADMIN_EMAIL: adminEmail, DEMO_ADMIN_PASSWORD: adminPassword },
      label: "seeding",
    })
    state.seededDatabase = dbIdentity
    writeFileSync(path.join(demoDir, "state.json"), JSON.stringify(state, null, 2), { mode: 0o600 })
  }
  const seed = JSON.parse(readFileSync(seedFile, "utf8"))

  // 4. The demo storefront (its origin must be known to Medusa's CORS and to the plugin's allowed
  //    redirect origins before Medusa starts), then Medusa with the admin, the plugin loaded from
  //    source (edits reload)
  if (!(await portFree(port))) {
    throw new Error(`port ${port} is in use (another demo or Medusa?): stop it or set DEMO_PORT`)
  }
  const backendUrl = `http://localhost:${port}`
  const storefrontPort = storefrontPortSetting
  try {
    storefront = await startStorefront({
      port: storefrontPort,
      backendUrl,
      publishableKey: seed.publishableKey,
      regionId: seed.regionId,
      providerId: "pp_payin_default",
      sandboxUrl,
    })
  } catch (error) {
    if (error.code === "EADDRINUSE") {
      throw new Error(`port ${storefrontPort} is in use: stop what uses it or set DEMO_STOREFRONT_PORT`)
    }
    throw error
  }
  log(`demo storefront at ${storefront.url}`)
  // the store's CORS keeps what STORE_CORS says and adds the allowed origins and the demo's storefront;
  // the Payment Page may send shoppers back to the same storefronts
  env.STORE_CORS = uniqueList(storeCors, allowedOrigins, [storefront.url, "http://localhost:8000", backendUrl]).join(",")
  env.PAYIN_DEMO_STOREFRONT_URL = uniqueList([storefront.url], allowedOrigins).join(",")
  // shopper notifications on (plugin options in the app's medusa-config), with Medusa's local
  // notification provider on "email": it logs each one ([medusa] "Attempting to send a
  // notification…"); the Notification Module stores them. Their status links go to the storefront.
  env.PAYIN_NOTIFICATIONS = "true"
  env.PAYIN_ORDER_STATUS_URL = `${storefront.url}/order/{order_id}`
  if (allowedOrigins.length) log(`outside storefronts allowed: ${allowedOrigins.join(", ")}`)
  log("starting Medusa…")
  startService(medusaBin, ["develop", "--port", String(port)], { env, name: "medusa" })
  await waitForHealth(`${backendUrl}/health`, 180_000)

  // 5. Sample pay-ins (paid, awaiting, expired, disputed, recalculated, late, stray), once per
  //    database, through the store API and the sandbox's webhooks (sample-payins.mjs): the
  //    admin's Pay-ins pages and order widget have something to show.
  //    A sample that cannot be made is a warning, never a failed demo.
  if (state.samplesDatabase !== dbIdentity || !state.samples) {
    log("making sample pay-ins…")
    const samplesStarted = Date.now()
    try {
      state.samples = await makeSamples({
        backendUrl,
        sandboxUrl,
        seed,
        admin: { email: adminEmail, password: adminPassword },
        log: (line) => (stopping ? undefined : log(line)),
        notifications: true,
      })
    } catch (error) {
      if (!stopping) {
        log(`WARNING: sample pay-ins failed: ${describeError(error)}`)
      }
      state.samples = {}
    }
    if (stopping) {
      return // interrupted: made again next time
    }
    log(`${Object.keys(state.samples).length} sample pay-ins made in ${((Date.now() - samplesStarted) / 1000).toFixed(1)} s`)
    state.samplesDatabase = dbIdentity
    writeFileSync(path.join(demoDir, "state.json"), JSON.stringify(state, null, 2), { mode: 0o600 })
  }

  if (stopping) {
    return
  }
  // the shopper notifications the store created (the sample pay-ins', and any made since), as the
  // Notification Module holds them
  let notifications = []
  try {
    notifications = (await listNotifications({ backendUrl, admin: { email: adminEmail, password: adminPassword }, channel: "email" })).map(
      (n) => ({ id: n.id, template: n.template, to: n.to, orderId: n.resource_id, createdAt: n.created_at })
    )
  } catch (error) {
    log(`WARNING: could not list the notifications: ${describeError(error)}`)
  }
  const byTemplate = {}
  const templateOrder = ["payin.instructions", "payin.paid", "payin.expired"]
  const rank = (t) => (templateOrder.includes(t) ? templateOrder.indexOf(t) : templateOrder.length)
  for (const t of [...new Set(notifications.map((n) => n.template))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))) {
    byTemplate[t] = notifications.filter((n) => n.template === t).length
  }
  if (stopping) {
    return
  }
  const demo = {
    backendUrl,
    adminUrl: `${backendUrl}/app`,
    adminEmail,
    adminPassword,
    publishableKey: seed.publishableKey,
    regionId: seed.regionId,
    productVariantId: seed.productVariantId,
    providerId: "pp_payin_default",
    sandboxUrl,
    sandboxApiKey: state.sandboxApiKey,
    storeApiUrl: `${backendUrl}/store`,
    storefrontUrl: storefront.url,
    webhookUrl,
    /** The demo's PostgreSQL (the embedded one unless DATABASE_URL / DB_HOST was given): open it with psql. */
    databaseUrl: env.DATABASE_URL,
    samples: state.samples,
    notifications: {
      channel: "email",
      provider: "local (@medusajs/medusa/notification-local: logged, not delivered)",
      orderStatusUrl: env.PAYIN_ORDER_STATUS_URL,
      total: notifications.length,
      byTemplate,
      items: notifications,
    },
  }
  writeFileSync(path.join(demoDir, "demo.json"), JSON.stringify(demo, null, 2) + "\n")

  console.log(
    [
      "",
      `  Pay-in demo is up (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      "",
      `  Storefront:       ${demo.storefrontUrl}  (buy the demo product, pay on the sandbox's page)`,
      `  Admin:            ${demo.adminUrl}  (first load compiles the dashboard, ~30 s)`,
      `  Admin login:      ${adminEmail} / ${adminPassword}`,
      `  Store API:        ${demo.storeApiUrl}`,
      `  Publishable key:  ${demo.publishableKey}`,
      `  Region (RUB):     ${demo.regionId}   provider ${demo.providerId}`,
      `  Product variant:  ${demo.productVariantId}`,
      `  Sandbox service:  ${sandboxUrl}  (x-api-key ${state.sandboxApiKey})`,
      `  Database:         psql "${demo.databaseUrl}"  (tables payin_transaction, payin_status_change, payin_webhook_event)`,
      `  Sample pay-ins:   ${Object.keys(demo.samples ?? {}).length ? "(orders and the pay-in ledger ids)" : "none"}`,
      ...Object.entries(demo.samples ?? {}).map(
        ([name, s]) =>
          `    ${name.padEnd(13)} ${s.orderId ? `${demo.adminUrl}/orders/${s.orderId}` : `cart ${s.cartId} (no order)`}  ${s.ledgerId} ${s.status}${s.flags?.length ? ` [${s.flags.join(", ")}]` : ""}`
      ),
      `  Notifications:    ${notifications.length} on channel "email" (Medusa's local provider logs them; a store registers SendGrid, Resend, …)${
        notifications.length ? ": " + Object.entries(byTemplate).map(([t, n]) => `${t} ${n}`).join(", ") : ""
      }`,
      `  Admin pages:      ${demo.adminUrl}/payin (Pay-ins), ${demo.adminUrl}/settings/payin (Settings → Pay-in)`,
      `  Details:          ${path.relative(root, path.join(demoDir, "demo.json")).startsWith("..") ? path.join(demoDir, "demo.json") : path.relative(root, path.join(demoDir, "demo.json"))}`,
      "",
      "  Ctrl-C stops everything.",
      "",
    ].join("\n")
  )
}

main().catch((error) => {
  if (!stopping) {
    console.error(`[demo] ${error.message}`)
  }
  shutdown(1)
})
