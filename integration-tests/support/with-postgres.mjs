// Runs a command with DB_HOST/DB_PORT/DB_USERNAME/DB_PASSWORD pointing at a PostgreSQL server:
// the one DB_HOST/DATABASE_URL names, or a throw-away embedded one.
// Usage: node integration-tests/support/with-postgres.mjs <command> [args...]
// (npm run db:generate uses it for `medusa plugin:db:generate`).
import { spawn } from "node:child_process"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { externalDatabase, startEmbeddedPostgres } from "./postgres.mjs"

const [command, ...args] = process.argv.slice(2)
if (!command) {
  console.error("usage: with-postgres.mjs <command> [args...]")
  process.exit(2)
}

let server = null
let parent = null
let db = externalDatabase()
if (!db) {
  parent = await mkdtemp(path.join(os.tmpdir(), "payin-pg-"))
  await chmod(parent, 0o755)
  server = await startEmbeddedPostgres({ dataDir: path.join(parent, "data") })
  db = server.db
}
const env = { ...process.env, ...db }
delete env.DATABASE_URL
const child = spawn(command, args, { stdio: "inherit", env, shell: false })
const code = await new Promise((resolve) => child.on("exit", (c, s) => resolve(c ?? (s ? 1 : 0))))
if (server) {
  await server.stop()
  await rm(parent, { recursive: true, force: true })
}
process.exit(code)
