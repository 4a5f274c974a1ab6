// Jest globalSetup for integration tests: a real PostgreSQL for @medusajs/test-utils.
import os from "node:os"
import path from "node:path"
import { mkdtemp } from "node:fs/promises"
import { externalDatabase, startEmbeddedPostgres } from "./postgres.mjs"

export default async function globalSetup() {
  const external = externalDatabase()
  if (external) {
    Object.assign(process.env, external)
    console.log(`\n[payin tests] using PostgreSQL at ${external.DB_HOST}:${external.DB_PORT}`)
    return
  }
  const started = Date.now()
  // os.tmpdir() is world-traversable; the cluster folder itself is chowned to "postgres".
  const parent = await mkdtemp(path.join(os.tmpdir(), "payin-test-pg-"))
  const { chmod } = await import("node:fs/promises")
  await chmod(parent, 0o755)
  const server = await startEmbeddedPostgres({ dataDir: path.join(parent, "data") })
  Object.assign(process.env, server.db)
  globalThis.__PAYIN_PG__ = { server, parent }
  console.log(`\n[payin tests] embedded PostgreSQL on port ${server.db.DB_PORT} (${Date.now() - started} ms)`)
}
