#!/usr/bin/env node
// Verifies the storefront kit's dtc-starter guide on a real starter:
//
//   npm run verify:starter -- <dtc-starter checkout, bare git dir, or .tar/.tar.gz/.tgz archive>
//   node integration-tests/starter/verify-starter.mjs <same> [--keep] [--work DIR]
//
// As a developer following src/storefront/README.md would, in a fresh copy of the starter (the
// guide's pinned commit when the source has it, committed in a new git repository as a clone is):
//  1. pnpm install with the starter's pinned pnpm (its "packageManager"; pnpm@10.11.1 through npx
//     when the installed pnpm is another version), then the three packages from their tarballs,
//     copied into the apps' vendor/ folders and added by relative path (the plugin and the sandbox
//     into apps/backend, the kit into apps/storefront; packed from this repository's build, so run
//     `npm run build` first; the packed copies are deleted once in vendor/);
//  2. `git apply` of the patch the installed kit ships (guides/dtc-starter.patch);
//  3. the starter MOVED to another folder (the first one gone: an absolute path into it, or into
//     the packed tarballs, breaks what follows), where everything else runs, in production mode;
//  4. the backend's .env as the guide's step 2 says (PAYIN_ENCRYPTION_KEY made as it says; the
//     caller's environment gives the apps none of their variables), PostgreSQL (DATABASE_URL /
//     DB_HOST, else the embedded one of integration-tests/support/postgres.mjs), the sandbox as
//     the guide's step 4 runs it (--data .payin-sandbox.json), then the guide's step 16:
//     `medusa build`, vendor/ and .env.production into .medusa/server, `pnpm install --prod
//     --ignore-workspace` there, `medusa db:migrate` (the starter's seed, with pp_payin_default on
//     its region), an admin user and `medusa start`, all with NODE_ENV=production; it fails,
//     saying why, when PAYIN_ENCRYPTION_KEY is missing from that environment; the sandbox's API
//     key is then saved from the admin (encrypted with it);
//  5. the storefront's `next build` (it reads the backend) and its strict `tsc --noEmit`;
//     `next start`;
//  6. Chromium (integration-tests/support/chromium.ts): a shopper whose cart has an item (added
//     through the store API) fills the starter's Addresses and Delivery steps, picks the pay-in's
//     option (data-testid payin-payment-option), a bank and a method, places the order, sees the
//     instructions and the "awaits your payment" heading, pays on the sandbox's Payment Page and
//     comes back through the return route to a paid order, captured exactly once for its total;
//     then, with carts whose address and delivery are set through the store API,
//     payin_requisites_unavailable is shown with its code and a retry works; an order left unpaid
//     until the window ends shows as not paid, canceled, after a reload too; `git status` of the
//     store lists the vendor/ tarballs and neither the sandbox's data file nor an env file; with
//     pay again on (admin setting), an order whose pay-in expired gets new details on its page
//     ("Get new payment details"), paid on the Payment Page, back through the return route to the
//     order page, paid, captured exactly once for its total.
//
// It prints each phase's time, the time from the fresh copy to the paid order, and a summary;
// exit code 0 when everything passed. Ports 9000 (backend), 8000 (storefront) and 4010
// (sandbox), the starter's and the guide's defaults, must be free. Processes it started are
// stopped at the end (by their ids); --keep leaves the work folder for inspection.
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
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
const SANDBOX_DATA = ".payin-sandbox.json" // the guide's step 4: --data, in apps/backend
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
let paidMs = null // from the fresh copy of the starter to the first paid order

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

// The apps' configuration is the files the guide sets up: none of it comes from the caller's shell
// (a PAYIN_ENCRYPTION_KEY exported there would hide one the guide forgot).
const APP_VARS = /^(PAYIN_\w*|NEXT_PUBLIC_\w*|MEDUSA_WORKER_MODE|MEDUSA_BACKEND_URL|DATABASE_URL|DB_NAME|REDIS_URL|JWT_SECRET|COOKIE_SECRET|STORE_CORS|ADMIN_CORS|AUTH_CORS|STOREFRONT_URL|PORT)$/

function env(extra = {}) {
  const e = { ...process.env }
  for (const name of Object.keys(e)) if (APP_VARS.test(name)) delete e[name]
  Object.assign(e, { NEXT_TELEMETRY_DISABLED: "1", npm_config_audit: "false", npm_config_fund: "false" }, extra)
  delete e.NODE_OPTIONS
  if (!("NODE_ENV" in extra)) delete e.NODE_ENV
  return e
}

/** KEY=value lines of an env file (dotenv's plain form: comments, optional quotes). */
function readEnvFile(file) {
  const vars = {}
  if (!existsSync(file)) return vars
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^\s*(?:export\s+)?([\w.-]+)\s*=\s*(.*?)\s*$/.exec(line)
    if (m) vars[m[1]] = m[2].replace(/^(['"])(.*)\1$/, "$2")
  }
  return vars
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

/** Fails, saying why, unless `vars` (the backend's environment in `where`) has a usable PAYIN_ENCRYPTION_KEY. */
function encryptionKeyIn(where, vars) {
  const key = vars.PAYIN_ENCRYPTION_KEY?.trim() ?? ""
  check(
    `PAYIN_ENCRYPTION_KEY in the backend's environment (${where}), 32+ characters`,
    key.length >= 32,
    key
      ? `${key.length} characters${key.length < 32 ? ": the plugin refuses fewer than 32" : ""}`
      : "missing: the guide's step 2 must name it in apps/backend/.env.template (PAYIN_ENCRYPTION_KEY=) and say how to make one; " +
          "every Medusa process needs it to store the API key from the admin, and refuses to start without it once one is stored"
  )
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

/** A fresh copy of the starter in `dir` (the pinned commit when a git source has it, else HEAD); returns its commit when the source says it. */
function copyStarter(from, dir, pinned) {
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
    const revParse = (rev) => execFileSync("git", ["--git-dir", gitDir, "rev-parse", "--verify", "--quiet", rev], { encoding: "utf8" }).trim()
    let commit
    try {
      commit = revParse(`${pinned}^{commit}`)
    } catch {
      commit = revParse("HEAD") // reported as not the pinned commit
    }
    // the committed tree, exactly: what a fresh clone has
    execFileSync("sh", ["-c", `git --git-dir="${gitDir}" archive ${commit} | tar -x -C "${dir}"`])
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
  const packDir = path.join(os.tmpdir(), `payin-verify-pack-${process.pid}`)
  const [pluginTgz, kitTgz, sandboxTgz] = await phase("pack the plugin, the kit and the sandbox (npm run build first)", async () => packAll(packDir))

  const work = workArg ? path.resolve(workArg) : mkdtempSync(path.join(os.tmpdir(), "payin-starter-"))
  if (work.includes("dist")) throw new Error(`the work folder ${work} contains "dist" (Medusa cannot boot from such a path): use --work`)
  const cleanup = () => {
    rmSync(packDir, { recursive: true, force: true })
    if (!keep && !workArg) rmSync(work, { recursive: true, force: true })
  }
  for (const leftover of ["first", "moved"]) rmSync(path.join(work, leftover), { recursive: true, force: true }) // an earlier run's, with --work
  try {
    const copied = await phase("fresh copy of the starter", async () => {
      const c = copyStarter(source, path.join(work, "first", "dtc-starter"), pinned)
      // committed, as a clone is: `git status` then shows what the guide changes and adds
      const git = (...argv) => execFileSync("git", ["-c", "user.name=verify-starter", "-c", "user.email=verify-starter@payin.test", "-c", "commit.gpgsign=false", ...argv], { cwd: c.dir, stdio: "ignore" })
      git("init", "-q")
      git("add", "-A")
      git("commit", "-q", "-m", `dtc-starter ${c.commit ?? "(copy)"}`)
      return c
    })
    const fresh = Date.now()
    const first = copied.dir
    if (copied.commit) {
      const same = copied.commit.startsWith(pinned)
      log(`starter commit ${copied.commit.slice(0, 7)}; the guide is pinned to ${pinned}${same ? "" : " (different: the guide may not apply)"}`)
      results.push({ name: `starter at the guide's pinned commit ${pinned}`, ok: same, detail: copied.commit.slice(0, 7) })
    }
    const pnpm = await pnpmCommand()
    const p = (argv, opts) => run(pnpm.cmd, [...pnpm.pre, ...argv], opts)

    await phase("pnpm install (the starter's lockfile)", () => p(["install", "--frozen-lockfile"], { cwd: first }))
    // the guide's step 1: the tarballs inside the store's repository, added by relative path
    const vendored = {
      plugin: ["backend", path.basename(pluginTgz)],
      sandbox: ["backend", path.basename(sandboxTgz)],
      kit: ["storefront", path.basename(kitTgz)],
    }
    await phase("pnpm add the packages from the apps' vendor/ folders", async () => {
      for (const [tgz, [app, name]] of [[pluginTgz, vendored.plugin], [sandboxTgz, vendored.sandbox], [kitTgz, vendored.kit]]) {
        mkdirSync(path.join(first, "apps", app, "vendor"), { recursive: true })
        copyFileSync(tgz, path.join(first, "apps", app, "vendor", name))
      }
      rmSync(packDir, { recursive: true, force: true }) // only vendor/ holds them now
      await p(["--filter", "@dtc/backend", "add", `./vendor/${vendored.plugin[1]}`], { cwd: first })
      await p(["--filter", "@dtc/backend", "add", "-D", `./vendor/${vendored.sandbox[1]}`], { cwd: first })
      await p(["--filter", "@dtc/storefront", "add", `./vendor/${vendored.kit[1]}`], { cwd: first })
    })
    const specs = (dir) => {
      const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"))
      return { ...pkg.dependencies, ...pkg.devDependencies }
    }
    {
      const backendSpecs = specs(path.join(first, "apps", "backend"))
      const kitSpec = specs(path.join(first, "apps", "storefront"))["medusa-plugin-payin-storefront"]
      const named = [backendSpecs["medusa-plugin-payin"], backendSpecs["medusa-plugin-payin-sandbox"], kitSpec]
      check(
        "package.json names the tarballs by relative path (file:vendor/…)",
        named.every((spec, i) => spec === `file:vendor/${[vendored.plugin, vendored.sandbox, vendored.kit][i][1]}`),
        named.join(", ")
      )
      const lock = readFileSync(path.join(first, "pnpm-lock.yaml"), "utf8")
      check("pnpm-lock.yaml has no absolute path (of the starter's folder or the packed tarballs)", !lock.includes(first) && !lock.includes(packDir))
    }

    const shipped = path.join(first, "apps", "storefront", "node_modules", "medusa-plugin-payin-storefront", "guides", "dtc-starter.patch")
    await phase("git apply the kit's guides/dtc-starter.patch", async () => {
      check("the installed kit ships guides/dtc-starter.patch", existsSync(shipped))
      check(
        "the shipped patch is the repository's",
        readFileSync(shipped, "utf8") === readFileSync(path.join(root, "src", "storefront", "guides", "dtc-starter.patch"), "utf8")
      )
      const relative = path.relative(first, shipped)
      await run("git", ["apply", "--check", relative], { cwd: first })
      await run("git", ["apply", relative], { cwd: first })
      check("git apply of the patch", true, relative)
    })

    // Another folder from here on: nothing may point into the first one
    const starter = path.join(work, "moved", "dtc-starter")
    await phase("move the starter to another folder", async () => {
      mkdirSync(path.dirname(starter), { recursive: true })
      renameSync(first, starter)
      rmSync(path.join(work, "first"), { recursive: true, force: true })
      check("the starter moved; its first folder and the packed tarballs are gone", existsSync(starter) && !existsSync(first) && !existsSync(packDir), `${first} → ${starter}`)
    })
    const backend = path.join(starter, "apps", "backend")
    const storefront = path.join(starter, "apps", "storefront")
    const server = path.join(backend, ".medusa", "server")

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
    // the guide's step 2: .env from .env.template, with the database and a PAYIN_ENCRYPTION_KEY made
    // as the guide says (node's one-liner: 32 random bytes, base64)
    const template = readFileSync(path.join(backend, ".env.template"), "utf8")
    check("the backend's .env.template has the guide's PAYIN_ lines", /^PAYIN_API_KEY=sandbox_dev_key$/m.test(template) && /^PAYIN_BASE_URL=http:\/\/127\.0\.0\.1:4010$/m.test(template))
    writeFileSync(
      path.join(backend, ".env"),
      template
        .replace(/^DATABASE_URL=.*$/m, `DATABASE_URL=${databaseUrl(db, dbName)}`)
        .replace(/^PAYIN_ENCRYPTION_KEY=.*$/m, `PAYIN_ENCRYPTION_KEY=${randomBytes(32).toString("base64")}`)
    )
    encryptionKeyIn("apps/backend/.env", readEnvFile(path.join(backend, ".env")))

    // the guide's step 4, in its own terminal: the sandbox, its state in .payin-sandbox.json
    const sandbox = start(
      "payin-sandbox",
      pnpm.cmd,
      [...pnpm.pre, "exec", "payin-sandbox", "--api-key", SANDBOX_KEY, "--port", String(PORTS.sandbox), "--store-url", backendUrl, "--data", SANDBOX_DATA],
      { cwd: backend }
    )

    // the guide's step 16: the backend in production mode
    await phase("backend build (medusa build)", async () => {
      await p(["medusa", "build"], { cwd: backend })
      const named = specs(server)
      check(
        ".medusa/server/package.json names the tarballs by relative path",
        named["medusa-plugin-payin"] === `file:vendor/${vendored.plugin[1]}`,
        `medusa-plugin-payin: ${named["medusa-plugin-payin"]}`
      )
    })
    await phase("backend production install (vendor/ and .env.production into .medusa/server, pnpm install --prod)", async () => {
      cpSync(path.join(backend, "vendor"), path.join(server, "vendor"), { recursive: true })
      // production values: the backend's .env with its own JWT and cookie secrets
      const secret = () => randomBytes(32).toString("base64")
      writeFileSync(
        path.join(server, ".env.production"),
        readFileSync(path.join(backend, ".env"), "utf8")
          .replace(/^JWT_SECRET=.*$/m, `JWT_SECRET=${secret()}`)
          .replace(/^COOKIE_SECRET=.*$/m, `COOKIE_SECRET=${secret()}`)
      )
      // what medusa start reads there (loadEnv: .env.production, then .env; the first value wins)
      encryptionKeyIn(".medusa/server/.env.production and .env", { ...readEnvFile(path.join(server, ".env")), ...readEnvFile(path.join(server, ".env.production")) })
      await p(["install", "--prod", "--ignore-workspace"], { cwd: server })
    })
    const production = { cwd: server, extraEnv: { NODE_ENV: "production" } }
    await phase("medusa db:migrate (the starter's seed) and an admin user, in production", async () => {
      await p(["medusa", "db:migrate"], production)
      await p(["medusa", "user", "-e", ADMIN.email, "-p", ADMIN.password], production)
    })

    const medusa = start("medusa start", pnpm.cmd, [...pnpm.pre, "medusa", "start"], production)
    await phase("backend (medusa start) and sandbox up", async () => {
      await eventually("the sandbox's listening line", async () => {
        if (sandbox.child.exitCode !== null) throw new Error(`payin-sandbox exited:\n${sandbox.output}`)
        return sandbox.output.includes("payin-sandbox listening on")
      })
      await eventually(
        "medusa start answers",
        async () => {
          if (medusa.child.exitCode !== null) throw new Error(`medusa start exited:\n${medusa.output.slice(-4000)}`)
          return (await fetch(`${backendUrl}/health`)).ok
        },
        300_000,
        1000
      )
    })

    // the admin API with a bearer token (the admin's session cookie is Secure: no login over plain http)
    const { token } = await (await fetch(`${backendUrl}/auth/user/emailpass`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ADMIN) })).json()
    const admin = async (method, route, body) => {
      const res = await fetch(`${backendUrl}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      })
      if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`)
      return res.json()
    }
    const adminGet = (route) => admin("GET", route)
    const { api_keys } = await adminGet("/admin/api-keys?type=publishable")
    const publishableKey = api_keys[0].token
    const { regions } = await adminGet("/admin/regions?fields=id,name,*payment_providers")
    check(
      "the seeded region has pp_payin_default (the patched seed)",
      regions.some((r) => (r.payment_providers ?? []).some((pp) => pp.id === "pp_payin_default")),
      regions.map((r) => `${r.name}: ${(r.payment_providers ?? []).map((pp) => pp.id).join(", ")}`).join("; ")
    )
    const settings = await adminGet("/admin/payin/settings")
    check("the production backend has PAYIN_ENCRYPTION_KEY (admin: encryption configured)", settings.encryption?.configured === true, JSON.stringify(settings.encryption))
    // the sandbox's key saved from the admin: stored encrypted with it, used for every payment below
    const saved = await admin("POST", "/admin/payin/settings/default", { apiKey: SANDBOX_KEY })
    check("the API key saved from the admin (encrypted at rest)", saved.configured === true && saved.sources?.apiKey === "admin", `configured: ${saved.configured}; apiKey from: ${saved.sources?.apiKey}`)

    // the guide's step 5 (and 16: production values before next build)
    const local = readFileSync(path.join(storefront, ".env.template"), "utf8")
      .replace(/^NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY=.*$/m, `NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY=${publishableKey}`)
      .replace(/^NEXT_PUBLIC_MEDUSA_BACKEND_URL=.*$/m, `NEXT_PUBLIC_MEDUSA_BACKEND_URL=${backendUrl}`)
      .replace(/^NODE_ENV=.*$/m, "") // next build and next start set it themselves
    check("the storefront's .env.template has NEXT_PUBLIC_MEDUSA_BACKEND_URL", local.includes(`NEXT_PUBLIC_MEDUSA_BACKEND_URL=${backendUrl}`))
    writeFileSync(path.join(storefront, ".env.local"), local)
    await phase("storefront build (next build)", () => p(["build"], { cwd: storefront, extraEnv: { NODE_ENV: "production" } }))
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
      // the guide's test id on the pay-in's option; its radio shows it picked
      const option = page.getByTestId("payin-payment-option")
      await option.click()
      await option.locator('[data-testid="radio-button"][data-state="checked"]').waitFor()
      return { cartId, context, page, visited }
    }
    async function toReview(page) {
      await page.getByTestId("submit-payment-button").click()
      await page.waitForURL(/step=review/)
      await page.getByTestId("submit-order-button").waitFor()
    }
    async function placeOrder(page) {
      await toReview(page)
      await page.getByTestId("submit-order-button").click()
      await page.waitForURL(/\/order\/order_\w+\/confirmed$/)
      const orderId = orderIdOf(page)
      await instructions(page, "awaiting_payment")
      return orderId
    }
    const instructions = (page, state) => page.locator(`[data-testid="payin-instructions"][data-state="${state}"]`).waitFor()
    const heading = async (page, outcome) => {
      const lines = page.locator(`[data-testid="payin-order-heading"][data-outcome="${outcome}"]`)
      await lines.waitFor()
      return lines.textContent()
    }
    const orderIdOf = (page) => /\/order\/(order_\w+)\/confirmed$/.exec(new URL(page.url()).pathname)?.[1]
    const returnedThrough = (visited, cartId) => visited.some((u) => u.startsWith(`${storefrontUrl}/${COUNTRY}/payin-return?cart_id=${cartId}`))
    /** Waits for the order's capture; checks there is exactly one, for the order's total. */
    async function capturedOnce(orderId, prefix = "") {
      const order = await eventually(
        "the order captured",
        async () => {
          const { order } = await adminGet(`/admin/orders/${orderId}?fields=id,status,total,payment_status,*payment_collections.payments.captures`)
          return order.payment_status === "captured" && order
        },
        60_000
      )
      const captures = order.payment_collections.flatMap((pc) => pc.payments ?? []).flatMap((pay) => pay.captures ?? [])
      check(
        `${prefix}the order is captured exactly once, for its total`,
        captures.length === 1 && Number(captures[0].amount) === Number(order.total),
        `${captures.length} capture(s): ${captures.map((c) => c.amount).join(", ")}; total ${order.total}`
      )
      return order
    }
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

    await scenario("paid on the hosted Payment Page, captured once (address and delivery through the UI)", async (track) => {
      const { cartId, page, visited } = await shopper({ throughUi: true })
      track(page)
      await page.getByTestId("payin-bank-select").selectOption("wise")
      await page.getByTestId("payin-method-select").selectOption("account")
      const orderId = await placeOrder(page)
      check("the order page heading says the order awaits payment", (await heading(page, "awaiting")) === "Thank you!Your order was placed and awaits your payment.")
      const awaiting = await payinStatus(`order_id=${orderId}`)
      check("the pay-in has the chosen bank and method", awaiting.payin?.bank === "wise" && awaiting.payin?.method === "account", JSON.stringify({ bank: awaiting.payin?.bank, method: awaiting.payin?.method }))
      await page.getByTestId("payin-instructions").getByTestId("payin-payment-page-link").click()
      await page.waitForURL((url) => url.href.startsWith(sandboxUrl))
      await page.locator("#paid").click()
      await page.waitForURL(new RegExp(`/order/${orderId}/confirmed$`))
      check("came back through the return route", returnedThrough(visited, cartId))
      await instructions(page, "paid")
      check("the order page heading says paid", (await heading(page, "paid")) === "Thank you!Your order was placed and paid.")
      paidMs = Date.now() - fresh
      log(`time from the fresh copy of the starter to the paid order: ${seconds(paidMs)}`)
      await capturedOnce(orderId)
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
      const orderId = await placeOrder(page)
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

    await phase("git status of the store", async () => {
      check("the sandbox wrote its data file (--data)", existsSync(path.join(backend, SANDBOX_DATA)), path.join("apps", "backend", SANDBOX_DATA))
      const lines = execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: starter, encoding: "utf8" }).split("\n").filter(Boolean)
      const paths = lines.map((l) => l.slice(3))
      check(
        "git status --porcelain does not list the sandbox's data file (it holds the API key)",
        !paths.some((f) => f.endsWith(SANDBOX_DATA)),
        paths.filter((f) => f.endsWith(SANDBOX_DATA)).join(", ")
      )
      const envFiles = paths.filter((f) => /(^|\/)\.env(\.(?!template$)[\w.]+)?$/.test(f))
      check("nor an env file (.env, .env.local, .env.production)", envFiles.length === 0, envFiles.join(", "))
      const tarballs = Object.values(vendored).map(([app, name]) => `apps/${app}/vendor/${name}`)
      check("it lists the vendor/ tarballs, to commit with the store", tarballs.every((f) => paths.includes(f)), `${lines.length} entries: ${paths.join(", ")}`)
    })

    await scenario("pay again: new details after the window ended, paid on the Payment Page, back on the order page", async (track) => {
      await admin("POST", "/admin/payin/settings/default", { payAgain: { enabled: true } })
      try {
        const { cartId, page, visited } = await shopper()
        track(page)
        const orderId = await placeOrder(page)
        const { payin: firstPayin } = await payinStatus(`order_id=${orderId}`)
        await control("POST", `/_sandbox/transactions/${firstPayin.payin_id}/expire`)
        await instructions(page, "expired")
        await page.getByTestId("payin-pay-again").click()
        await instructions(page, "awaiting_payment")
        const again = await payinStatus(`order_id=${orderId}`)
        check("pay again made a new pay-in; the order still waits", again.payin?.payin_id !== firstPayin.payin_id && again.order?.status !== "canceled", `${firstPayin.payin_id} → ${again.payin?.payin_id}; order ${again.order?.status}`)
        await page.getByTestId("payin-instructions").getByTestId("payin-payment-page-link").click()
        await page.waitForURL((url) => url.href.startsWith(`${sandboxUrl}/pay/${again.payin.payin_id}`))
        await page.locator("#paid").click()
        const landed = await page.waitForURL(new RegExp(`/order/${orderId}/confirmed$`), { timeout: 30_000 }).then(
          () => true,
          () => false
        )
        check(
          "pay again: the Payment Page of the new details sent the shopper back to the order page",
          landed,
          `still on ${page.url()}: pay again's session needs the first one's return URLs (the store's POST /store/payin/pay-again)`
        )
        check("pay again: came back through the return route", returnedThrough(visited, cartId))
        await instructions(page, "paid")
        check("pay again: the order page heading says paid", (await heading(page, "paid")) === "Thank you!Your order was placed and paid.")
        const order = await capturedOnce(orderId, "pay again: ")
        check("pay again: the order is not canceled", order.status !== "canceled", order.status)
      } finally {
        await admin("POST", "/admin/payin/settings/default", { payAgain: { enabled: false } }).catch(() => undefined)
      }
    })

  } finally {
    await browser?.close().catch(() => undefined)
    await stopChildren()
    await stopPostgres().catch(() => undefined)
    cleanup()
    if (keep || workArg) log(`work folder kept: ${work}`)
  }
}

main()
  .then(() => {
    summary()
    process.exit(results.every((r) => r.ok) ? 0 : 1)
  })
  .catch(async (error) => {
    console.error(`[verify-starter] ${error.stack ?? error}`)
    for (const { name, output } of children) console.error(`--- ${name} (last output)\n${output.slice(-3000)}`)
    summary()
    process.exit(1)
  })

function summary() {
  console.log("\n[verify-starter] summary")
  for (const [name, ms] of phases) console.log(`  ${seconds(ms).padStart(9)}  ${name}`)
  for (const r of results) console.log(`  ${r.ok ? "PASS" : "FAIL"}  ${r.name}${r.detail && !r.ok ? `: ${r.detail}` : ""}`)
  if (paidMs) console.log(`  fresh copy of the starter → paid order: ${seconds(paidMs)}`)
  console.log(`  total: ${seconds(Date.now() - started)}; ${results.filter((r) => r.ok).length} passed, ${results.filter((r) => !r.ok).length} failed`)
}
