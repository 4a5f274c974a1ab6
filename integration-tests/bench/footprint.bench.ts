// `npm run bench` (footprint part): what installing the plugin costs a store's processes at
// start-up, measured the way a store runs in production.
//
// One throw-away store under os.tmpdir(): the built plugin packed with `npm pack` and installed
// from the tarball (every other dependency a symlink to this repository's node_modules), a
// medusa-config.js that registers it with withPayin() from "medusa-plugin-payin/config" only when
// PAYIN_FOOTPRINT=on and is otherwise the same config. `medusa build` once (plugin on, admin on:
// the admin bundle then carries the plugin's extensions; a production server only reads the
// bundle's index.html at start and serves the rest from disk, so both variants boot the same admin
// code), `medusa db:migrate` once with the plugin on (the same database serves both variants).
// Then `medusa start` from the build output (NODE_ENV=production, the CLI as a production install
// runs it: without ts-node, see medusaEntry), with and without the plugin, alternately (A,B then
// B,A, …), BENCH_FOOTPRINT_ROUNDS rounds (default 3):
//   - start-up: spawn → first 200 from GET /health (polled every 50 ms); also the CPU seconds the
//     process tree used by then (utime + stime from /proc/<pid>/stat), steadier on a busy machine;
//   - RSS: VmRSS from /proc/<pid>/status summed over the process tree, read 2 s after /health
//     first answered (no GC forced before it); then, as a second figure, the live V8 heap after a
//     full GC (a preloaded probe answers SIGUSR2 with process.memoryUsage() after gc()).
// Topologies: one process with Medusa's in-memory event bus, workflow engine, locking and caching
// (workerMode shared), then the production topology on a real Redis (event bus, workflow engine,
// locking and caching on Redis, projectConfig.redisUrl) as a server process and as a worker
// process (MEDUSA_WORKER_MODE). A worker has no API routes, but `medusa start` (2.21.2,
// commands/start.js) still listens and registers GET /health after every loader has run, whatever
// the worker mode, so /health is the "booted" signal for both roles; each boot is checked to be
// the role it claims (GET /admin/users: 401 on a server, 404 on a worker, which has no routes).
// Reading the figures: 2 s after /health V8 still holds the garbage of the boot (a worker's heap
// is about 170 MB before a full GC and 90 MB live), which its memory reducer hands back to the OS
// 30-60 s later when the process is idle; so the RSS extra is the plugin's live memory plus
// however much more boot garbage that sample happens to catch, and the live heap is the steadier
// memory figure. On a shared machine the wall-clock start-up swings by seconds from boot to boot;
// the CPU seconds are the steadier start-up figure (a boot is mostly one busy thread).
// Also per topology: the main process's RSS right after that full GC (the boot garbage the GC hands
// back no longer counts) and each V8 space's committed and used size then (where the heap grew),
// and what the plugin makes the process load: the files in require.cache
// with the plugin and not without it, grouped by the plugin's folder or package, with their sizes.
// BENCH_SMOKE=1: one round, no admin bundle (admin.disable), figures meaningless.
// Prints and records the medians of each variant and the plugin's extra cost (the median of the per-round
// differences); asserts only that everything booted.
import { ChildProcess, execFileSync, spawn } from "child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "fs"
import net from "net"
import os from "os"
import path from "path"
import { performance } from "perf_hooks"
import { Client } from "pg"
import { request } from "undici"
import { freePort } from "../support/net"
import { RunningRedis, startRedis } from "../support/redis"
import { recordLines } from "./record"
import { SMOKE, benchSetting } from "./smoke"
import { alternating, median } from "./stats"

jest.setTimeout(900_000)

const ROUNDS = Math.max(1, benchSetting("BENCH_FOOTPRINT_ROUNDS", 3, 1))
const SETTLE_MS = 2_000
const BOOT_TIMEOUT_MS = 180_000
const TARGET_RSS_MB = 20
const TARGET_START_S = 0.5

const root = path.resolve(__dirname, "..", "..")
const medusaBin = path.join(root, "node_modules", ".bin", "medusa")
/**
 * What `medusa start` runs in a production install: the CLI's bin (cli.js) first registers ts-node
 * when it can load it, then runs this entry. A production install (NODE_ENV=production npm install
 * in the build output) has no devDependencies, so no ts-node; here it would load the repository's
 * own ts-node, which type-checks the build's medusa-config.js (allowJs) with every type it imports:
 * about 5 s of CPU and 350 MB per boot that a production store does not pay, and 25-45 MB more
 * with the plugin's types (measured while writing this bench), which would swamp the plugin's own.
 */
const medusaEntry = path.join(root, "node_modules", "@medusajs", "cli", "dist", "index.js")
const builtConfig = path.join(root, ".medusa", "server", "medusa-plugin.config.js")
const clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100

let store = ""
let redis: RunningRedis | undefined
let dbName = ""
const children = new Set<ChildProcess>()

const dbEnv = () => ({
  host: process.env.DB_HOST || "localhost",
  port: Number(process.env.DB_PORT || 5432),
  user: process.env.DB_USERNAME || "postgres",
  password: process.env.DB_PASSWORD || "",
})

async function onPostgres(sql: string): Promise<void> {
  const client = new Client({ ...dbEnv(), database: "postgres" })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL")
  await redis?.stop()
  if (dbName) await onPostgres(`drop database if exists "${dbName}" with (force)`).catch(() => undefined)
  if (store) rmSync(store, { recursive: true, force: true })
})

/** Runs a command to completion; rejects with the tail of its output when it fails. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout!.on("data", (d) => (out += d))
    child.stderr!.on("data", (d) => (out += d))
    child.on("error", reject)
    child.on("exit", (code, signal) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(" ")} failed (${code ?? signal}):\n${out.slice(-4000)}`))
    )
  })
}

/** The environment of every Medusa process: this one's, minus what could steer Medusa or the plugin. */
function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const key of Object.keys(env)) {
    if (/^(PAYIN_|MEDUSA_|REDIS_|DATABASE_|DB_|JEST_|NODE_OPTIONS$|NODE_ENV$)/.test(key)) delete env[key]
  }
  return {
    ...env,
    NODE_ENV: "production",
    MEDUSA_DISABLE_TELEMETRY: "true",
    DATABASE_URL: `postgres://${encodeURIComponent(dbEnv().user)}:${encodeURIComponent(dbEnv().password)}@${dbEnv().host}:${dbEnv().port}/${dbName}`,
    // every process of a store with the plugin needs it (README: Production); harmless without
    PAYIN_ENCRYPTION_KEY: "footprint-bench-encryption-key-0123456789abcdef",
    // smoke mode: no admin bundle (its vite build is most of the bench's set-up time)
    ...(SMOKE ? { FOOTPRINT_NO_ADMIN: "1" } : {}),
    ...extra,
  }
}

/** pid and its descendants, from /proc/<pid>/stat's parent ids. */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {}
  }
  const out: number[] = []
  const stack = [pid]
  while (stack.length) {
    const next = stack.pop()!
    out.push(next)
    stack.push(...(children.get(next) ?? []))
  }
  return out
}

const rssMb = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024
    } catch {
      return sum
    }
  }, 0)

const cpuSeconds = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return sum + (Number(fields[11]) + Number(fields[12])) / clockTicks
    } catch {
      return sum
    }
  }, 0)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function status(url: string): Promise<number | null> {
  try {
    const res = await request(url, { headersTimeout: 2_000, bodyTimeout: 2_000 })
    await res.body.text()
    return res.statusCode
  } catch {
    return null
  }
}

/**
 * Empties the Redis before a boot: a process with the plugin leaves its scheduled job in Redis
 * (BullMQ), which the next process without it would find and remove, work that is not its own.
 * Only done on the bench's own redis-server (not when REDIS_URL names one).
 */
function flushRedis(url: string): Promise<void> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port || 6379), hostname || "127.0.0.1")
    socket.setTimeout(5_000, () => {
      socket.destroy()
      reject(new Error(`Redis ${url}: no answer to FLUSHALL`))
    })
    socket.on("error", reject)
    socket.on("connect", () => socket.write("FLUSHALL\r\n"))
    socket.on("data", (d) => {
      socket.destroy()
      d.toString().startsWith("+OK") ? resolve() : reject(new Error(`Redis ${url}: FLUSHALL answered ${d}`))
    })
  })
}

type Boot = {
  startS: number
  cpuS: number
  rssMb: number
  heapMb: number
  /** the main process's RSS right after that full GC (garbage the GC handed back no longer counts) */
  rssAfterGcMb: number
  /** right after that GC: V8's committed heap, and memory outside it (Buffers, native objects) */
  heapTotalMb: number
  externalMb: number
  /** every file in the main process's require.cache when the probe answered */
  modules: string[]
  /** right after that GC: each V8 space's committed and used bytes (v8.getHeapSpaceStatistics) */
  spaces: Record<string, { size: number; used: number }>
  processes: number
  names: string
}
type Role = "shared" | "server" | "worker"

/** One `medusa start` of the build output: boots, measures, checks its role, and is killed. */
async function boot(plugin: boolean, role: Role, extraEnv: Record<string, string>): Promise<Boot> {
  const serverDir = path.join(store, ".medusa", "server")
  // only a Redis of our own (startRedis without REDIS_URL): never empty a Redis someone gave us
  if (extraEnv.FOOTPRINT_REDIS_URL && !process.env.REDIS_URL) await flushRedis(extraEnv.FOOTPRINT_REDIS_URL)
  const port = await freePort()
  const probeOut = path.join(store, `probe-${port}.json`)
  const env = baseEnv({
    PAYIN_FOOTPRINT: plugin ? "on" : "off",
    MEDUSA_WORKER_MODE: role,
    NODE_OPTIONS: `--expose-gc --require ${path.join(store, "probe.cjs")}`,
    FOOTPRINT_PROBE_OUT: probeOut,
    ...extraEnv,
  })
  const started = performance.now()
  const child = spawn(process.execPath, [medusaEntry, "start", "--port", String(port)], {
    cwd: serverDir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  })
  children.add(child)
  let log = ""
  child.stdout!.on("data", (d) => (log += d))
  child.stderr!.on("data", (d) => (log += d))
  const what = `${role} ${plugin ? "with" : "without"} the plugin`
  try {
    const base = `http://127.0.0.1:${port}`
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}):\n${log.slice(-4000)}`)
      }
      if ((await status(`${base}/health`)) === 200) break
      if (performance.now() - started > BOOT_TIMEOUT_MS) throw new Error(`${what}: no /health within ${BOOT_TIMEOUT_MS} ms:\n${log.slice(-4000)}`)
      await sleep(50)
    }
    const startS = (performance.now() - started) / 1000
    const cpuS = cpuSeconds(processTree(child.pid!))
    await sleep(SETTLE_MS)
    const pids = processTree(child.pid!)
    const rss = rssMb(pids)
    // the live heap after a full GC, read after the RSS so it does not change it
    rmSync(probeOut, { force: true })
    child.kill("SIGUSR2")
    const deadline = Date.now() + 10_000
    while (!existsSync(probeOut) && Date.now() < deadline) await sleep(20)
    const probe = existsSync(probeOut) ? JSON.parse(readFileSync(probeOut, "utf8")) : null
    const heapMb = probe ? probe.heapUsed / 1048576 : NaN
    const rssAfterGcMb = probe ? probe.rss / 1048576 : NaN
    const heapTotalMb = probe ? probe.heapTotal / 1048576 : NaN
    const externalMb = probe ? probe.external / 1048576 : NaN
    // the role it claims: a worker has no routes (404), a server guards the admin API (401)
    const admin = await status(`${base}/admin/users`)
    const expected = role === "worker" ? 404 : 401
    if (admin !== expected) throw new Error(`${what}: GET /admin/users answered ${admin}, expected ${expected}:\n${log.slice(-2000)}`)
    if (!/Server is ready on port/.test(log)) throw new Error(`${what}: no "Server is ready" line:\n${log.slice(-2000)}`)
    const names = pids.map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, "utf8").trim()
      } catch {
        return "gone"
      }
    })
    return { startS, cpuS, rssMb: rss, heapMb, rssAfterGcMb, heapTotalMb, externalMb, modules: probe?.modules ?? [], spaces: probe?.spaces ?? {}, processes: pids.length, names: names.join("+") }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once("exit", r))
      child.kill("SIGKILL")
      await gone
    }
    children.delete(child)
  }
}

const mb = (n: number) => `${n.toFixed(1)} MB`
const s = (n: number) => `${n.toFixed(2)} s`
const signed = (n: number, digits: number) => `${n >= 0 ? "+" : ""}${n.toFixed(digits)}`

/** One result line per topology: medians of each variant, the plugin's extra and the per-round pairs. */
function resultLines(label: string, on: Boot[], off: Boot[]): string[] {
  type Figure = "startS" | "cpuS" | "rssMb" | "heapMb" | "rssAfterGcMb" | "heapTotalMb" | "externalMb"
  const m = (runs: Boot[], key: Figure) => median(runs.map((r) => r[key]))
  // the plugin's extra: the median of the per-round differences (each round boots both variants
  // back to back, in alternating order), so one slow boot of either variant moves it less
  const paired = (key: Figure) => median(on.map((r, i) => r[key] - off[i][key]))
  const extraRss = paired("rssMb")
  const extraStart = paired("startS")
  const extraCpu = paired("cpuS")
  const extraHeap = paired("heapMb")
  const extraRssAfterGc = paired("rssAfterGcMb")
  const extra = (key: Figure) => signed(paired(key), 1)
  const pairs = (key: Figure, digits: number) => on.map((r, i) => signed(r[key] - off[i][key], digits)).join(", ")
  const verdict = (value: number, target: number) => (value <= target ? "met" : "MISSED")
  return [
    `footprint, ${label}: with the plugin RSS ${mb(m(on, "rssMb"))}, start-up ${s(m(on, "startS"))} (CPU ${s(m(on, "cpuS"))}); ` +
      `without ${mb(m(off, "rssMb"))}, ${s(m(off, "startS"))} (CPU ${s(m(off, "cpuS"))}); processes per boot: ${[...new Set([...on, ...off].map((r) => r.processes))].join("/")}`,
    `  extra RSS ${signed(extraRss, 1)} MB (ratio ${(m(on, "rssMb") / m(off, "rssMb")).toFixed(3)}; target <= ${TARGET_RSS_MB} MB: ${verdict(extraRss, TARGET_RSS_MB)}; per round ${pairs("rssMb", 1)})`,
    `  extra start-up ${signed(extraStart, 2)} s (ratio ${(m(on, "startS") / m(off, "startS")).toFixed(3)}; target <= ${TARGET_START_S} s: ${verdict(extraStart, TARGET_START_S)}; per round ${pairs("startS", 2)}); ` +
      `extra CPU ${signed(extraCpu, 2)} s (per round ${pairs("cpuS", 2)})`,
    `  live V8 heap after a full GC: ${mb(m(on, "heapMb"))} vs ${mb(m(off, "heapMb"))}, extra ${signed(extraHeap, 1)} MB; ` +
      `main process RSS right after that GC ${mb(m(on, "rssAfterGcMb"))} vs ${mb(m(off, "rssAfterGcMb"))}, extra ${signed(extraRssAfterGc, 1)} MB ` +
      `(V8 heap committed ${extra("heapTotalMb")} MB, external ${extra("externalMb")} MB)`,
    `  ${spacesLine(on, off)}`,
    `  ${loadedLine(on[0], off[0])}`,
  ]
}

/** Where V8's committed heap grows: each space's extra committed (and used) MB after the full GC, medians of the per-round differences. */
function spacesLine(on: Boot[], off: Boot[]): string {
  const names = [...new Set([...on, ...off].flatMap((r) => Object.keys(r.spaces)))]
  const space = (r: Boot, name: string, key: "size" | "used") => (r.spaces[name]?.[key] ?? 0) / 1048576
  const of = (name: string, key: "size" | "used") => median(on.map((r, i) => space(r, name, key) - space(off[i], name, key)))
  const parts = names
    .map((name) => ({ name, size: of(name, "size"), used: of(name, "used") }))
    .filter((p) => Math.abs(p.size) >= 0.05 || Math.abs(p.used) >= 0.05)
    .map((p) => `${p.name} ${signed(p.size, 1)} (used ${signed(p.used, 1)})`)
  return `V8 spaces after that GC, extra committed MB: ${parts.join(", ") || "none"}`
}

/**
 * What the plugin makes the process load: the files in require.cache with the plugin and not
 * without it (first round of each), grouped by the plugin's folder or the package, largest first.
 */
function loadedLine(on: Boot, off: Boot): string {
  // a file's path from the first node_modules/ on (the store's and the repository's are the same packages)
  const inModules = (file: string) => file.replace(/^.*?\/node_modules\//, "")
  const without = new Set(off.modules.map(inModules))
  const groups = new Map<string, { files: number; bytes: number }>()
  let files = 0
  let bytes = 0
  for (const file of on.modules) {
    const rel = inModules(file)
    if (without.has(rel) || !file.includes("/node_modules/")) continue
    const nested = rel.split("/node_modules/")
    const parts = nested[nested.length - 1].split("/")
    const name = parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]
    const key =
      name === "medusa-plugin-payin"
        ? `plugin ${parts.slice(3, -1).join("/") || parts.slice(1, -1).join("/") || "."}`
        : nested.length > 1
          ? `${name} (under ${nested.slice(0, -1).join("/node_modules/")})`
          : name
    let size = 0
    try {
      size = statSync(file).size
    } catch {}
    const group = groups.get(key) ?? { files: 0, bytes: 0 }
    group.files++
    group.bytes += size
    groups.set(key, group)
    files++
    bytes += size
  }
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`
  const top = [...groups.entries()].sort((a, b) => b[1].bytes - a[1].bytes)
  return (
    `loaded with the plugin only: ${files} files, ${kb(bytes)} of JavaScript` +
    (top.length ? `: ${top.map(([k, g]) => `${k} ${g.files} (${kb(g.bytes)})`).join(", ")}` : "")
  )
}

/** The plugin source files changed after the build this bench packs (then the figures are of older code). */
function staleSources(): number {
  const built = statSync(builtConfig).mtimeMs
  let newer = 0
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) {
        if (entry.name !== "__tests__") walk(full)
      } else if (/\.(ts|tsx)$/.test(entry.name) && statSync(full).mtimeMs > built) {
        newer++
      }
    }
  }
  walk(path.join(root, "src"))
  if (statSync(path.join(root, "medusa-plugin.config.ts")).mtimeMs > built) newer++
  return newer
}

const STORE_CONFIG = `// The footprint bench's store: the same config with the plugin (PAYIN_FOOTPRINT=on) or without.
const { defineConfig } = require("@medusajs/framework/utils")

const redisUrl = process.env.FOOTPRINT_REDIS_URL
const redisModules = redisUrl
  ? [
      { resolve: "@medusajs/medusa/event-bus-redis", options: { redisUrl } },
      { resolve: "@medusajs/medusa/workflow-engine-redis", options: { redis: { redisUrl, url: redisUrl } } },
      {
        resolve: "@medusajs/medusa/locking",
        options: { providers: [{ resolve: "@medusajs/medusa/locking-redis", id: "locking-redis", is_default: true, options: { redisUrl } }] },
      },
      {
        resolve: "@medusajs/medusa/caching",
        options: { providers: [{ resolve: "@medusajs/medusa/caching-redis", id: "caching-redis", is_default: true, options: { redisUrl } }] },
      },
    ]
  : []

const config = {
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    workerMode: process.env.MEDUSA_WORKER_MODE || "shared",
    ...(redisUrl ? { redisUrl } : {}),
    http: {
      storeCors: "http://localhost:8000",
      adminCors: "http://localhost:9000",
      authCors: "http://localhost:8000,http://localhost:9000",
      jwtSecret: "footprint-jwt-secret",
      cookieSecret: "footprint-cookie-secret",
    },
  },
  ...(redisUrl ? { featureFlags: { caching: true } } : {}),
  ...(process.env.FOOTPRINT_NO_ADMIN === "1" ? { admin: { disable: true } } : {}),
  modules: redisModules,
}

module.exports = defineConfig(
  process.env.PAYIN_FOOTPRINT === "on"
    ? require("medusa-plugin-payin/config").withPayin(config, {
        providers: [{ id: "default", apiKey: "footprint-api-key-0123456789", baseUrl: "http://127.0.0.1:9" }],
      })
    : config
)
`

const PROBE = `// Preloaded into every measured process: on SIGUSR2, writes process.memoryUsage() after a full GC
// and the files in require.cache.
process.on("SIGUSR2", () => {
  const before = process.memoryUsage().heapUsed
  if (global.gc) global.gc()
  const now = process.memoryUsage()
  const modules = Object.keys(require.cache)
  // V8's spaces after that GC: which of them the committed heap's growth is in
  const spaces = Object.fromEntries(
    require("v8").getHeapSpaceStatistics().map((sp) => [sp.space_name, { size: sp.space_size, used: sp.space_used_size }])
  )
  // written aside and renamed: the reader waits for the file, and must never see half of it
  const fs = require("fs")
  fs.writeFileSync(process.env.FOOTPRINT_PROBE_OUT + ".tmp", JSON.stringify({ ...now, heapUsedBeforeGc: before, modules, spaces }))
  fs.renameSync(process.env.FOOTPRINT_PROBE_OUT + ".tmp", process.env.FOOTPRINT_PROBE_OUT)
})
`

const STORE_TSCONFIG = {
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
    allowJs: true,
    checkJs: false,
    outDir: "./.medusa/server",
    rootDir: "./",
    jsx: "react-jsx",
    resolveJsonModule: true,
  },
  include: ["**/*", ".medusa/types/*"],
  exclude: ["node_modules", ".medusa/server", ".medusa/admin", ".cache", "*.tgz", "probe.cjs"],
}

it("measures what the plugin adds to a store's start-up and memory", async () => {
  const began = performance.now()
  const log = (line: string) => console.log(`[footprint ${((performance.now() - began) / 1000).toFixed(0)} s] ${line}`)
  if (!existsSync(builtConfig)) {
    log("the plugin is not built: `npx medusa plugin:build`…")
    await run("npx", ["medusa", "plugin:build"], root, process.env)
  }
  const stale = staleSources()

  // the store: the packed plugin, every other dependency the repository's own
  store = mkdtempSync(path.join(os.tmpdir(), "payin-footprint-"))
  if (/dist/i.test(store)) throw new Error(`the store folder ${store} contains "dist": Medusa cannot boot from it`)
  const packed = (await run("npm", ["pack", "--silent", "--pack-destination", store], root, process.env)).trim().split("\n").pop()!
  const pluginDir = path.join(store, "node_modules", "medusa-plugin-payin")
  mkdirSync(pluginDir, { recursive: true })
  execFileSync("tar", ["-xzf", path.join(store, packed), "-C", pluginDir, "--strip-components=1"])
  for (const entry of readdirSync(path.join(root, "node_modules"))) {
    if (entry === "medusa-plugin-payin" || entry.startsWith(".")) continue
    symlinkSync(path.join(root, "node_modules", entry), path.join(store, "node_modules", entry))
  }
  const medusaVersion = JSON.parse(readFileSync(path.join(root, "node_modules", "@medusajs", "medusa", "package.json"), "utf8")).version
  writeFileSync(
    path.join(store, "package.json"),
    JSON.stringify(
      {
        name: "payin-footprint-store",
        private: true,
        dependencies: {
          "@medusajs/framework": medusaVersion,
          "@medusajs/medusa": medusaVersion,
          "@medusajs/cli": medusaVersion,
          "medusa-plugin-payin": `file:./${packed}`,
        },
      },
      null,
      2
    )
  )
  writeFileSync(path.join(store, "tsconfig.json"), JSON.stringify(STORE_TSCONFIG, null, 2))
  writeFileSync(path.join(store, "medusa-config.js"), STORE_CONFIG)
  writeFileSync(path.join(store, "probe.cjs"), PROBE)
  log(`store ${store}, plugin from ${packed}`)

  dbName = `payin_footprint_${process.pid}_${Date.now()}`
  await onPostgres(`create database "${dbName}"`)
  // The build and the migrations (from the store's own config, plugin on) side by side; Redis meanwhile.
  const env = baseEnv({ PAYIN_FOOTPRINT: "on" })
  const [buildMs, migrateMs] = await Promise.all([
    (async () => {
      const t = performance.now()
      await run(medusaBin, ["build"], store, env)
      return performance.now() - t
    })(),
    (async () => {
      const t = performance.now()
      await run(medusaBin, ["db:migrate"], store, env)
      return performance.now() - t
    })(),
  ])
  const serverDir = path.join(store, ".medusa", "server")
  expect(existsSync(path.join(serverDir, "medusa-config.js"))).toBe(true)
  if (!SMOKE) expect(existsSync(path.join(serverDir, "public", "admin", "index.html"))).toBe(true)
  symlinkSync(path.join(store, "node_modules"), path.join(serverDir, "node_modules"))
  log(`medusa build ${(buildMs / 1000).toFixed(1)} s, db:migrate ${(migrateMs / 1000).toFixed(1)} s (in parallel)`)
  {
    const client = new Client({ ...dbEnv(), database: dbName })
    await client.connect()
    const { rows } = await client.query("select to_regclass('public.payin_transaction') as t")
    await client.end()
    expect(rows[0].t).toBe("payin_transaction")
  }

  const single = await alternating(ROUNDS, {
    on: () => boot(true, "shared", {}),
    off: () => boot(false, "shared", {}),
  })
  // the figures of every boot (the module lists are summed up in the result lines)
  const figures = (boots: Boot[]) => JSON.stringify(boots.map(({ modules, spaces, ...rest }) => ({ ...rest, modules: modules.length })))
  log(`one process: on ${figures(single.on)} off ${figures(single.off)}`)

  redis = await startRedis(log)
  const redisEnv = { FOOTPRINT_REDIS_URL: redis.url }
  const topology = await alternating(ROUNDS, {
    serverOn: () => boot(true, "server", redisEnv),
    serverOff: () => boot(false, "server", redisEnv),
    workerOn: () => boot(true, "worker", redisEnv),
    workerOff: () => boot(false, "worker", redisEnv),
  })
  log(`redis: ${Object.entries(topology).map(([k, boots]) => `${k} ${figures(boots)}`).join(" ")}`)

  const totalS = (performance.now() - began) / 1000
  const lines = [
    `footprint: \`medusa start\` of a built store (npm-packed plugin, NODE_ENV=production, admin on, no ts-node as in a production install), with vs without the plugin, ` +
      `${ROUNDS} alternating rounds, medians (extra: median of the per-round differences). Start-up = spawn → first 200 from GET /health (CPU = utime+stime by then); ` +
      `RSS = VmRSS summed over the process tree 2 s after that, no GC forced; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs; ` +
      `whole bench ${totalS.toFixed(0)} s${stale ? `; NOTE: ${stale} plugin source file(s) changed after the build measured here (npm run build)` : ""}`,
    ...resultLines("one process (in-memory event bus/workflows/locking/caching, workerMode shared)", single.on, single.off),
    ...resultLines("Redis topology, server process", topology.serverOn, topology.serverOff),
    ...resultLines("Redis topology, worker process (booted = /health, which `medusa start` serves in worker mode too)", topology.workerOn, topology.workerOff),
  ]
  recordLines(lines)
  console.log(["", "footprint benchmark", ...lines, ""].join("\n"))
  expect(single.on).toHaveLength(ROUNDS)
  expect(topology.workerOff).toHaveLength(ROUNDS)
})
