import { rm } from "node:fs/promises"

export default async function globalTeardown() {
  const handle = globalThis.__PAYIN_PG__
  if (!handle) {
    return
  }
  await handle.server.stop() // bounded: fast shutdown, then SIGQUIT/SIGKILL
  await rm(handle.parent, { recursive: true, force: true })
}
