// Runs a command with DB_HOST/DB_PORT/DB_USERNAME/DB_PASSWORD pointing at a PostgreSQL server:
// the one DB_HOST/DATABASE_URL names, or a throw-away embedded one.
// Usage: node integration-tests/support/with-postgres.mjs <command> [args...]
// (npm run db:generate uses it for `medusa plugin:db:generate`).
import { spawn } from "node:child_process"
import { rm } from "node:fs/promises"
import path from "node:path"
import { externalDatabase, makeScratchDir, startEmbeddedPostgres } from "./postgres.mjs"

const [command, ...args] = process.argv.slice(2)
if (!command) {
  console.error("usage: with-postgres.mjs <command> [args...]")
  process.exit(2)
}

let server = null
let parent = null
let child = null
let cleaning = null

async function cleanUp() {
  cleaning ??= (async () => {
    await server?.stop().catch(() => {})
    if (parent) {
      await rm(parent, { recursive: true, force: true })
    }
  })()
  return cleaning
}

// A signal to this process alone is passed on to the command; once it is gone the server stops.
// (Ctrl-C reaches the command and the server directly: they are in the terminal's process group.)
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill(signal)
    } else {
      cleanUp().then(() => process.exit(1))
    }
  })
}

let db = externalDatabase()
if (!db) {
  try {
    parent = await makeScratchDir("payin-pg-")
    server = await startEmbeddedPostgres({
      dataDir: path.join(parent, "data"),
      log: (line) => (/copying the PostgreSQL binaries/.test(line) ? console.error(`[with-postgres] ${line}`) : undefined),
    })
  } catch (error) {
    console.error(`[with-postgres] ${error.message}`)
    await cleanUp()
    process.exit(1)
  }
  db = server.db
}
const env = { ...process.env, ...db }
delete env.DATABASE_URL
child = spawn(command, args, { stdio: "inherit", env, shell: false })
const code = await new Promise((resolve) => {
  child.on("error", (error) => {
    console.error(`[with-postgres] ${command}: ${error.message}`)
    resolve(127)
  })
  child.on("exit", (c, s) => resolve(c ?? (s ? 1 : 0)))
})
await cleanUp()
process.exit(code)
