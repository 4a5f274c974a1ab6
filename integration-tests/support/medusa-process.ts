// Medusa processes of the test app started as a store runs them in production: `medusa start`,
// one per role (server / worker), on the same database.
import { ChildProcess, spawn } from "child_process"
import path from "path"
import { request } from "undici"
import { freePort } from "./net"

export const appDir = path.join(__dirname, "..", "app")
const medusaBin = path.join(__dirname, "..", "..", "node_modules", ".bin", "medusa")

export type MedusaProcess = {
  name: string
  url: string
  child: ChildProcess
  /** Everything it printed so far. */
  log: () => string
  /** SIGKILL, and wait until it is gone. */
  kill: () => Promise<void>
}

/** Starts `medusa start` of the test app and resolves once /health answers (workers answer it too). */
export async function startMedusa(
  name: string,
  env: Record<string, string | undefined>,
  { timeoutMs = 180_000 }: { timeoutMs?: number } = {}
): Promise<MedusaProcess> {
  const port = await freePort()
  let log = ""
  const child = spawn(medusaBin, ["start", "--port", String(port)], {
    cwd: appDir,
    env: { ...process.env, NODE_ENV: "development", MEDUSA_ADMIN_DISABLE: "true", MEDUSA_DISABLE_TELEMETRY: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  child.stdout!.on("data", (d) => (log += d))
  child.stderr!.on("data", (d) => (log += d))
  const url = `http://localhost:${port}`
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}):\n${log.slice(-4000)}`)
    }
    try {
      const res = await request(`${url}/health`)
      await res.body.text()
      if (res.statusCode === 200) break
    } catch {}
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`${name} did not start within ${timeoutMs} ms:\n${log.slice(-4000)}`)
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const gone = new Promise((r) => child.once("exit", r))
    child.kill("SIGKILL")
    await gone
  }
  return { name, url, child, log: () => log, kill }
}

/**
 * Runs a medusa CLI command of the test app to completion (`db:migrate`, `exec ./seed/…`) with
 * `env` (DATABASE_URL names the database); resolves with its output, rejects with it on failure.
 */
export function runMedusa(
  args: string[],
  env: Record<string, string | undefined>,
  { timeoutMs = 180_000 }: { timeoutMs?: number } = {}
): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = ""
    const child = spawn(medusaBin, args, {
      cwd: appDir,
      env: { ...process.env, NODE_ENV: "development", MEDUSA_ADMIN_DISABLE: "true", MEDUSA_DISABLE_TELEMETRY: "true", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    })
    child.stdout!.on("data", (d) => (log += d))
    child.stderr!.on("data", (d) => (log += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(new Error(`medusa ${args.join(" ")}: ${error.message}`))
    })
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve(log)
      else reject(new Error(`medusa ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${log.slice(-4000)}`))
    })
  })
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function pool<T>(items: T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++
        await fn(items[index], index)
      }
    })
  )
}

export function shuffle<T>(items: T[]): T[] {
  const a = [...items]
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[a[i], a[j]] = [a[j], a[i]]
  }
  return a
}

/** Polls `check` until it returns a truthy value; fails with `what` and the last value after `timeoutMs`. */
export async function eventually<T>(what: string, check: () => Promise<T>, timeoutMs = 90_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: T
  for (;;) {
    last = await check()
    if (last) return last
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms (last: ${JSON.stringify(last)})`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
