// Jest globalSetup for integration tests: a real PostgreSQL for @medusajs/test-utils.
import path from "node:path"
import { externalDatabase, makeScratchDir, startEmbeddedPostgres } from "./postgres.mjs"

export default async function globalSetup() {
  const external = externalDatabase()
  if (external) {
    Object.assign(process.env, external)
    console.log(`\n[payin tests] using PostgreSQL at ${external.DB_HOST}:${external.DB_PORT}`)
    return
  }
  const started = Date.now()
  // a folder the OS user "postgres" can enter; the cluster folder itself is chowned to it
  const parent = await makeScratchDir("payin-test-pg-")
  const server = await startEmbeddedPostgres({
    dataDir: path.join(parent, "data"),
    log: (line) => (/copying the PostgreSQL binaries/.test(line) ? console.log(`\n[payin tests] ${line}`) : undefined),
  })
  Object.assign(process.env, server.db)
  globalThis.__PAYIN_PG__ = { server, parent }
  console.log(`\n[payin tests] embedded PostgreSQL on port ${server.db.DB_PORT} (${Date.now() - started} ms)`)
}
