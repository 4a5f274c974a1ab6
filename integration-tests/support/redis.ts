// A real Redis for the production-topology tests and benchmarks: REDIS_URL when given, else
// Debian's redis-server (installed with apt when absent and running as root), started on a free
// port in a throw-away folder and stopped when done.
import { ChildProcess, spawn } from "child_process"
import { mkdtempSync, rmSync } from "fs"
import net from "net"
import os from "os"
import path from "path"
import { ensureDebianPackage } from "./debian"
import { freePort } from "./net"

const REDIS_SERVER = {
  pkg: "redis-server",
  candidates: ["/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/sbin/redis-server"],
  envVar: "REDIS_SERVER_PATH",
  otherwise: "or set REDIS_URL to a running Redis",
  tag: "[redis]",
}

/** The path of redis-server; installs Debian's `redis-server` package when there is none. */
export function ensureRedisServer(log: (line: string) => void = console.log): string {
  return ensureDebianPackage(REDIS_SERVER, log)
}

export type RunningRedis = { url: string; stop(): Promise<void> }

async function ping(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = net.connect(Number(port || 6379), hostname || "127.0.0.1")
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.on("error", () => done(false))
    socket.on("connect", () => socket.write("PING\r\n"))
    socket.on("data", (d) => done(d.toString().startsWith("+PONG")))
  })
}

/** REDIS_URL's server, or a fresh redis-server of our own (no persistence) on a free port. */
export async function startRedis(log: (line: string) => void = console.log): Promise<RunningRedis> {
  if (process.env.REDIS_URL) {
    if (!(await ping(process.env.REDIS_URL))) throw new Error(`REDIS_URL ${process.env.REDIS_URL} does not answer PING`)
    return { url: process.env.REDIS_URL, stop: async () => undefined }
  }
  const binary = ensureRedisServer(log)
  const port = await freePort()
  const dir = mkdtempSync(path.join(os.tmpdir(), "payin-redis-"))
  let output = ""
  const child: ChildProcess = spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no"],
    { stdio: ["ignore", "pipe", "pipe"] }
  )
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const url = `redis://127.0.0.1:${port}`
  const deadline = Date.now() + 15_000
  while (!(await ping(url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`redis-server did not start:\n${output.slice(-2000)}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM")
        await new Promise((r) => child.once("exit", r))
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
