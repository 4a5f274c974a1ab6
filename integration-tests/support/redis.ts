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
  return startOwnRedis({ log })
}

/** A redis-server of our own, which a fault test may crash and bring back empty on the same port. */
export type OwnRedis = RunningRedis & {
  port: number
  /** SIGKILL (a crash: nothing is saved, clients see the connection drop); resolves once it is gone. */
  kill(): Promise<void>
  /** Starts a new, empty redis-server on the same port (after kill() or stop()); resolves once it answers PING. */
  restart(): Promise<void>
}

/**
 * Always our own redis-server (never REDIS_URL's, which a test must not crash): no persistence,
 * on `port` or a free one, in a throw-away folder removed by stop().
 */
export async function startOwnRedis({ port, log = console.log }: { port?: number; log?: (line: string) => void } = {}): Promise<OwnRedis> {
  const binary = ensureRedisServer(log)
  const redisPort = port ?? (await freePort())
  const dir = mkdtempSync(path.join(os.tmpdir(), "payin-redis-"))
  const url = `redis://127.0.0.1:${redisPort}`
  let child: ChildProcess | null = null
  const gone = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null
  const end = async (signal: NodeJS.Signals) => {
    const c = child
    if (!c || gone(c)) return
    const exited = new Promise((r) => c.once("exit", r))
    c.kill(signal)
    await exited
  }
  const launch = async () => {
    let output = ""
    const c: ChildProcess = spawn(
      binary,
      ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no"],
      { stdio: ["ignore", "pipe", "pipe"] }
    )
    child = c
    c.stdout!.on("data", (d) => (output += d))
    c.stderr!.on("data", (d) => (output += d))
    const deadline = Date.now() + 15_000
    while (!(await ping(url))) {
      if (gone(c) || Date.now() > deadline) {
        c.kill("SIGKILL")
        throw new Error(`redis-server did not start on port ${redisPort}:\n${output.slice(-2000)}`)
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  await launch()
  return {
    url,
    port: redisPort,
    kill: () => end("SIGKILL"),
    async restart() {
      await end("SIGKILL")
      await launch()
    },
    async stop() {
      await end("SIGTERM")
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The keys of a Redis matching `pattern` (KEYS: for tests on a small Redis of our own). */
export async function redisKeys(url: string, pattern: string): Promise<string[]> {
  const { hostname, port } = new URL(url)
  const command = ["KEYS", pattern].map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port || 6379), hostname || "127.0.0.1")
    let buffer = Buffer.alloc(0)
    socket.setTimeout(5000, () => {
      socket.destroy()
      reject(new Error(`Redis at ${url} did not answer KEYS`))
    })
    socket.on("error", reject)
    socket.on("connect", () => socket.write(`*2\r\n${command}`))
    socket.on("data", (d) => {
      buffer = Buffer.concat([buffer, d])
      try {
        const keys = parseArray(buffer)
        if (keys) {
          socket.destroy()
          resolve(keys)
        }
      } catch (error) {
        socket.destroy()
        reject(error)
      }
    })
  })
}

/** A RESP array of bulk strings, or null while incomplete. */
function parseArray(buffer: Buffer): string[] | null {
  const line = (from: number) => {
    const end = buffer.indexOf("\r\n", from)
    return end < 0 ? null : { text: buffer.subarray(from, end).toString(), next: end + 2 }
  }
  const head = line(0)
  if (!head) return null
  if (head.text.startsWith("-")) throw new Error(`Redis: ${head.text.slice(1)}`)
  const count = Number(head.text.slice(1))
  const items: string[] = []
  let at = head.next
  for (let i = 0; i < count; i++) {
    const size = line(at)
    if (!size) return null
    const length = Number(size.text.slice(1))
    if (buffer.length < size.next + length + 2) return null
    items.push(buffer.subarray(size.next, size.next + length).toString())
    at = size.next + length + 2
  }
  return items
}
