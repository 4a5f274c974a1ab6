// The production topology the soak drives: a PostgreSQL of its own (so it can be restarted), a
// Redis of its own (so it can be killed and come back empty), two `medusa start` servers and one
// worker of the test app, the sandbox as the service, and a small load balancer in front of the
// servers that the sandbox's webhooks go to (it spreads them over the live servers, and copies
// each to both while a "duplicate" fault is on).
import { readFileSync, rmSync } from "fs"
import http from "http"
import net from "net"
import os from "os"
import path from "path"
import pg from "pg"
import { request } from "undici"
import { closePayinPools } from "../../src/client/client"
import { type RunningSandbox, startSandbox } from "../../src/sandbox"
import type { DemoSeedResult } from "../app/seed/demo-store"
import { TEST_ADMIN } from "../support/admin"
import { MedusaProcess, runMedusa, startMedusa } from "../support/medusa-process"
import { PrivatePostgres, startPrivatePostgres } from "../support/private-postgres"
import { OwnRedis, startOwnRedis } from "../support/redis"
import { Prng } from "./prng"

export const SOAK_KEY = "soak-service-key-0123456789"
const DATABASE = "payin_soak"

export type Role = "serverA" | "serverB" | "worker"
export const ROLES: readonly Role[] = ["serverA", "serverB", "worker"]

export type BalancerStats = { forwarded: number; duplicated: number; refused: number; dropped: number; broken: number }
/**
 * One callback at the balancer, as the auditor reads what the store was told: forwarded to a server
 * (with its answer; a copy to the other server while duplicating is one more record), dropped
 * (answered 200, lost), broken (502 or closed by the fault) or refused (no server took it).
 */
export type CallbackRecord = {
  at: number
  transactionId: string
  status: string
  fiatAmount: string | null
  fiatCurrency: string | null
  path: "forwarded" | "dropped" | "broken" | "refused"
  server?: "serverA" | "serverB"
  /** The server's HTTP status (forwarded only). */
  answer?: number
}
/** The balancer keeps this many callback records (a 30-minute run makes some tens of thousands). */
export const CALLBACK_RECORDS_LIMIT = 500_000

/** What the balancer does with a webhook: forward it; answer 200 and drop it; answer 502; close the connection unanswered. */
export type WebhookPath = "pass" | "drop" | "502" | "close"

export interface Topology {
  databaseUrl: string
  seed: DemoSeedResult
  sandbox: RunningSandbox
  redis: OwnRedis
  /** The soak's own PostgreSQL, which faults restart; null on a staging server (`--database-url`). */
  postgres: PrivatePostgres | null
  /** The current URL of a server, or null while it is down (a restart gets a new port). */
  serverUrl(role: "serverA" | "serverB"): string | null
  /** A live server's URL (A first), or null when both are down. */
  anyServer(): string | null
  process(role: Role): MedusaProcess | null
  /** SIGKILL of one process (it is marked down at once). */
  kill(role: Role): Promise<void>
  /** Starts a killed process again; resolves once /health answers. */
  restart(role: Role): Promise<void>
  /** While on, the balancer sends each webhook to both servers. */
  duplicateWebhooks: boolean
  /** The API key the service has now (SOAK_KEY until a merchant rotates it). */
  serviceKey: string
  /** The webhooks dropped or the URL broken for a while (a fault); "pass" otherwise. */
  webhooks: WebhookPath
  balancer: BalancerStats
  /** Every callback the balancer handled and what became of it. */
  callbacks: CallbackRecord[]
  /** Processes that exited without being killed by a fault (found when asked for, or at a restart). */
  exits: string[]
  /** What a process manager does: a process that exited by itself is started again. */
  supervise(): Promise<void>
  /** The output of every process so far (the killed ones' included), for the report on a failure. */
  logs(): Record<string, string>
  stop(): Promise<void>
}

/** The environment of one role: everything `medusa start` of the test app reads. */
function roleEnv(role: Role, databaseUrl: string, redisUrl: string, sandboxUrl: string, testPlugins: readonly string[]): Record<string, string | undefined> {
  return {
    DATABASE_URL: databaseUrl,
    MEDUSA_WORKER_MODE: role === "worker" ? "worker" : "server",
    PAYIN_APP_REDIS_URL: redisUrl,
    PAYIN_API_KEY: SOAK_KEY,
    PAYIN_BASE_URL: sandboxUrl,
    PAYIN_SECOND_API_KEY: undefined,
    PAYIN_ENCRYPTION_KEY: "soak-encryption-secret-0123456789",
    // a timed-out service call fails in 3 s (the default 15 s would let a timeout fault hold checkouts long)
    PAYIN_TIMEOUT_MS: "3000",
    // reconciliation every 10 s, of pay-ins older than 30 s: it races the webhooks, as in a busy store
    PAYIN_RECONCILE_INTERVAL_SECONDS: "10",
    PAYIN_RECONCILE_AFTER_SECONDS: "30",
    PAYIN_TEST_PAUSE_FILE: undefined,
    // a planted bug's test-only plugin (soak/plants.ts), never anything of the plugin itself
    PAYIN_APP_TEST_PLUGINS: testPlugins.length ? testPlugins.join(",") : undefined,
  }
}

export type TopologyOptions = {
  /** Test-only plugin folders of the test app (a plant). */
  testPlugins?: readonly string[]
  /** A PostgreSQL server of the store's (staging): the soak creates a database of its own on it and drops it at the end. */
  databaseUrl?: string
}

export async function startTopology(prng: Prng, log: (line: string) => void, options: TopologyOptions = {}): Promise<Topology> {
  // what is up so far, stopped in reverse order when a later part fails to start
  const undo: (() => Promise<unknown>)[] = []
  try {
    return await start(prng, log, undo, options)
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => undefined)
    throw error
  }
}

async function start(prng: Prng, log: (line: string) => void, undo: (() => Promise<unknown>)[], options: TopologyOptions): Promise<Topology> {
  const started = Date.now()
  const postgres = options.databaseUrl ? null : await startPrivatePostgres()
  const pgServer = options.databaseUrl ?? postgres!.url("postgres")
  // a database of its own, also on a staging server: the store's own data is never touched
  const database = options.databaseUrl ? `${DATABASE}_${Date.now()}` : DATABASE
  const onServer = async (sql: string) => {
    const admin = new pg.Client({ connectionString: pgServer })
    await admin.connect()
    await admin.query(sql).finally(() => admin.end())
  }
  undo.push(async () => (postgres ? postgres.close() : onServer(`drop database if exists ${database} with (force)`)))
  await onServer(`create database ${database}`)
  const databaseUrl = Object.assign(new URL(pgServer), { pathname: `/${database}` }).toString()
  if (!postgres) log(`PostgreSQL: database ${database} created on ${new URL(pgServer).host} (dropped at the end); no PostgreSQL restarts`)
  const seedFile = path.join(os.tmpdir(), `payin-soak-seed-${process.pid}.json`)
  await runMedusa(["db:migrate"], { DATABASE_URL: databaseUrl })
  await runMedusa(["exec", "./seed/run-demo-seed.ts"], {
    DATABASE_URL: databaseUrl,
    DEMO_SEED_OUT: seedFile,
    DEMO_ADMIN_EMAIL: TEST_ADMIN.email,
    DEMO_ADMIN_PASSWORD: TEST_ADMIN.password,
  })
  const seed = JSON.parse(readFileSync(seedFile, "utf8")) as DemoSeedResult
  rmSync(seedFile, { force: true })
  log(`PostgreSQL up, migrated and seeded in ${Date.now() - started} ms`)

  const redis = await startOwnRedis({ log })
  undo.push(() => redis.stop())
  const sandbox = await startSandbox({
    port: 0,
    host: "127.0.0.1",
    apiKey: SOAK_KEY,
    seed: prng.int(0, 2 ** 31),
    // one requisite pool per (bank, method) would refuse a second active pay-in of the same amount
    requisitesPerMethod: 1000,
    // retries long enough to outlive a server restart (~20 s on 2 cores); reconciliation covers the rest
    webhookRetryDelaysMs: [1_000, 3_000, 10_000, 30_000, 60_000],
    webhookTimeoutMs: 10_000,
    sweepIntervalMs: 1_000,
  })
  undo.push(() => sandbox.close().then(closePayinPools))

  const procs: Record<Role, MedusaProcess | null> = { serverA: null, serverB: null, worker: null }
  const deadLogs: string[] = []
  const env = (role: Role) => roleEnv(role, databaseUrl, redis.url, sandbox.url, options.testPlugins ?? [])
  // one boot per role at a time: a kill or a restart asked for meanwhile waits for it
  const booting: Partial<Record<Role, Promise<void>>> = {}
  const boot = (role: Role) =>
    (booting[role] ??= startMedusa(role, env(role))
      .then((p) => void (procs[role] = p))
      .finally(() => delete booting[role]))
  undo.push(() => Promise.all(ROLES.map((r) => procs[r]?.kill())))
  const bootStarted = Date.now()
  const booted = await Promise.allSettled(ROLES.map(boot))
  const failed = booted.find((b) => b.status === "rejected")
  if (failed) throw (failed as PromiseRejectedResult).reason
  log(`two servers and the worker booted in ${Date.now() - bootStarted} ms`)

  const balancer: BalancerStats = { forwarded: 0, duplicated: 0, refused: 0, dropped: 0, broken: 0 }
  const pick = prng.fork("balancer")
  const exits: string[] = []
  /** The process of a role while it runs; one that exited by itself is noted and counted as down. */
  const live = (role: Role) => {
    const p = procs[role]
    if (p && (p.child.exitCode !== null || p.child.signalCode !== null)) {
      exits.push(`${role} exited by itself (${p.child.exitCode ?? p.child.signalCode}) at ${new Date().toISOString()}`)
      deadLogs.push(`--- ${role} (exited by itself) ---\n${p.log().slice(-20_000)}`)
      procs[role] = null
      crashed.add(role)
    }
    return procs[role]
  }
  const crashed = new Set<Role>()
  const serverUrl = (role: "serverA" | "serverB") => live(role)?.url ?? null
  const topology: Topology = {
    databaseUrl,
    seed,
    sandbox,
    redis,
    postgres,
    serverUrl,
    anyServer: () => serverUrl("serverA") ?? serverUrl("serverB"),
    process: (role) => live(role),
    async kill(role) {
      await booting[role]?.catch(() => undefined)
      const p = procs[role]
      procs[role] = null
      if (!p) return
      await p.kill()
      deadLogs.push(`--- ${role} (killed) ---\n${p.log().slice(-20_000)}`)
    },
    async restart(role) {
      if (booting[role]) return booting[role]
      if (!live(role)) await boot(role)
    },
    exits,
    async supervise() {
      for (const role of ROLES) {
        live(role)
        if (!crashed.has(role)) continue
        crashed.delete(role)
        log(`${role} exited by itself: started again`)
        await boot(role)
      }
    },
    duplicateWebhooks: false,
    serviceKey: SOAK_KEY,
    webhooks: "pass",
    balancer,
    callbacks: [],
    logs: () => ({
      ...Object.fromEntries(ROLES.map((r) => [r, procs[r]?.log().slice(-20_000) ?? "(down)"])),
      killed: deadLogs.join("\n").slice(-40_000),
    }),
    async stop() {
      await Promise.allSettled(Object.values(booting))
      await Promise.all(ROLES.map((r) => procs[r]?.kill()))
      await closeBalancer()
      await sandbox.close()
      await closePayinPools()
      await redis.stop()
      if (postgres) await postgres.close()
      else await onServer(`drop database if exists ${database} with (force)`)
    },
  }

  // The balancer: a webhook goes to one live server (the seeded stream picks which), to the other
  // when that one refuses the connection; with duplicateWebhooks on, also to the other one.
  const forward = async (url: string, body: string, signature: string) => {
    const res = await request(`${url}/hooks/payin/default`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature": signature },
      body,
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    })
    return { status: res.statusCode, text: await res.body.text() }
  }
  const server = http.createServer((req, res) => {
    res.on("error", () => undefined) // the sandbox gave up waiting (its timeout): nothing to answer
    const chunks: Buffer[] = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8")
      let tx: { id?: string; status?: string; fiatAmount?: string; fiatCurrency?: string } = {}
      try {
        tx = JSON.parse(body)
      } catch {
        // not a Transaction: recorded with empty fields, the store rejects it anyway
      }
      const note = (path: CallbackRecord["path"], server?: "serverA" | "serverB", answer?: number) => {
        if (topology.callbacks.length >= CALLBACK_RECORDS_LIMIT) return
        topology.callbacks.push({
          at: Date.now(),
          transactionId: String(tx.id ?? ""),
          status: String(tx.status ?? ""),
          fiatAmount: tx.fiatAmount ?? null,
          fiatCurrency: tx.fiatCurrency ?? null,
          path,
          server,
          answer,
        })
      }
      const webhookPath = topology.webhooks
      if (webhookPath === "drop") {
        // a balancer or proxy that loses it after answering: the service thinks it delivered
        balancer.dropped++
        note("dropped")
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ received: true }))
        return
      }
      if (webhookPath === "502" || webhookPath === "close") {
        balancer.broken++
        note("broken")
        if (webhookPath === "close") req.socket.destroy()
        else res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ message: "bad gateway" }))
        return
      }
      const signature = String(req.headers["x-signature"] ?? "")
      const first: "serverA" | "serverB" = pick.chance(0.5) ? "serverA" : "serverB"
      const order = [first, first === "serverA" ? "serverB" : "serverA"] as const
      if (topology.duplicateWebhooks) {
        const other = serverUrl(order[1])
        if (other) {
          balancer.duplicated++
          forward(other, body, signature).then(
            (answer) => note("forwarded", order[1], answer.status),
            () => undefined
          )
        }
      }
      for (const role of order) {
        const url = serverUrl(role)
        if (!url) continue
        try {
          const answer = await forward(url, body, signature)
          balancer.forwarded++
          note("forwarded", role, answer.status)
          res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.text)
          return
        } catch {
          // refused or cut: the next server
        }
      }
      balancer.refused++
      note("refused")
      res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ message: "no server answered" }))
    })
  })
  const sockets = new Set<net.Socket>()
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const closeBalancer = async () => {
    for (const s of sockets) s.destroy()
    await new Promise((r) => server.close(r))
  }
  sandbox.updateMerchant({ webhookUrl: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hooks/payin/default` })
  return topology
}
