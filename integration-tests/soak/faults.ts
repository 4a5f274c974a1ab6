// Faults on a seeded schedule, in two lanes that run side by side: the store's processes (a server
// or the worker SIGKILLed and restarted, Redis killed and started empty, PostgreSQL restarted fast
// or immediately) one at a time, so one server always answers; and the service (the sandbox
// answering 5xx, too slowly or slowly within the deadline, its webhooks shuffled or delayed; the
// balancer in front of the servers copying each webhook to both, answering 200 and dropping them,
// or answering 502 / closing the connection: the webhook URL broken). Each fault is logged with
// the times it really began and ended.
import { Prng } from "./prng"
import type { Role, Topology } from "./topology"

export const PROCESS_FAULTS = ["kill_serverA", "kill_serverB", "kill_worker", "redis_restart", "postgres_restart_fast", "postgres_restart_immediate"] as const
export const SERVICE_FAULTS = [
  "service_5xx",
  "service_timeout",
  "service_slow",
  "webhooks_shuffled",
  "webhooks_delayed",
  "webhooks_duplicated",
  "webhooks_dropped",
  "webhook_url_broken",
] as const
export type FaultKind = (typeof PROCESS_FAULTS)[number] | (typeof SERVICE_FAULTS)[number]
export type Lane = "process" | "service"

export type PlannedFault = {
  lane: Lane
  kind: FaultKind
  atMs: number
  forMs: number
  probability?: number
  /** service_slow: the delay of every service answer (within the plugin's 3 s deadline) */
  delayMs?: number
  /** webhook_url_broken: how the URL fails, a 502 from the balancer or the connection closed unanswered */
  broken?: "502" | "close"
}
export type FaultRecord = PlannedFault & { startedAt?: number; endedAt?: number; skipped?: string; error?: string }

const PROCESS_WEIGHTS: Record<(typeof PROCESS_FAULTS)[number], number> = {
  kill_serverA: 2,
  kill_serverB: 2,
  kill_worker: 3,
  redis_restart: 1.5,
  postgres_restart_fast: 1,
  postgres_restart_immediate: 1,
}
const SERVICE_WEIGHTS: Record<(typeof SERVICE_FAULTS)[number], number> = {
  service_5xx: 2,
  service_timeout: 1.5,
  service_slow: 1.5,
  webhooks_shuffled: 1.5,
  webhooks_delayed: 1,
  webhooks_duplicated: 1.5,
  webhooks_dropped: 1,
  webhook_url_broken: 1,
}

/**
 * The schedule of a run of `durationMs`: per lane, first every kind of the lane once, in a seeded
 * order and packed close (so that a 3-minute run holds each kind), then by weight. A lane's first
 * fault is 10–15 s in; the gaps: while covering, a kill 22–26 s (a restart boots in about 20 s on
 * 2 cores), Redis/PostgreSQL 8–12 s, a service fault 10–15 s long and 3–6 s apart; then the
 * process lane 20–45 s, the service lane 10–40 s long and 10–30 s apart. Nothing starts in the
 * last 20 s of the load. Pure: a seed and a duration give one schedule.
 */
export function planFaults(prng: Prng, durationMs: number, { postgres = true }: { postgres?: boolean } = {}): PlannedFault[] {
  const plan: PlannedFault[] = []
  // a staging server's PostgreSQL is not the soak's to restart
  const processKinds = PROCESS_FAULTS.filter((k) => postgres || !k.startsWith("postgres"))
  const processWeights = Object.fromEntries(processKinds.map((k) => [k, PROCESS_WEIGHTS[k]])) as typeof PROCESS_WEIGHTS
  const lane = (name: Lane, stream: Prng) => {
    const first = shuffled(name === "process" ? processKinds : SERVICE_FAULTS, stream)
    for (let at = stream.int(10_000, 15_000), i = 0; at < durationMs - 20_000; i++) {
      const covering = i < first.length
      const kind = covering ? first[i] : name === "process" ? stream.weighted(processWeights) : stream.weighted(SERVICE_WEIGHTS)
      // process faults: how long it stays down before the restart; service faults: how long they last
      const forMs =
        name === "process" ? stream.int(0, kind.startsWith("postgres") ? (covering ? 5_000 : 10_000) : 5_000) : covering ? stream.int(10_000, 15_000) : stream.int(10_000, 40_000)
      const fault: PlannedFault = { lane: name, kind, atMs: at, forMs }
      if (kind === "service_5xx" || kind === "service_timeout") fault.probability = stream.pick([0.3, 0.6, 1])
      if (kind === "service_slow") fault.delayMs = stream.int(500, 2_000)
      if (kind === "webhook_url_broken") fault.broken = stream.pick(["502", "close"] as const)
      plan.push(fault)
      const gap =
        name === "service"
          ? covering ? stream.int(3_000, 6_000) : stream.int(10_000, 30_000)
          : !covering ? stream.int(20_000, 45_000) : kind.startsWith("kill_") ? stream.int(22_000, 26_000) : stream.int(8_000, 12_000)
      at += forMs + gap
    }
  }
  lane("process", prng.fork("process-lane"))
  lane("service", prng.fork("service-lane"))
  return plan.sort((a, b) => a.atMs - b.atMs)
}

function shuffled<T>(items: readonly T[], prng: Prng): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = prng.int(0, i)
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Starts one fault; resolves with the function that ends it (which resolves once it is over). */
async function begin(topology: Topology, f: PlannedFault): Promise<() => Promise<void>> {
  const { sandbox } = topology
  switch (f.kind) {
    case "kill_serverA":
    case "kill_serverB":
    case "kill_worker": {
      const role = f.kind.slice("kill_".length) as Role
      await topology.kill(role)
      return () => topology.restart(role)
    }
    case "redis_restart":
      await topology.redis.kill()
      return () => topology.redis.restart()
    case "postgres_restart_fast":
    case "postgres_restart_immediate":
      await topology.postgres!.stop(f.kind === "postgres_restart_fast" ? 5_000 : 0)
      return () => topology.postgres!.start()
    case "service_5xx":
      sandbox.setFaults([{ route: "*", status: 503, probability: f.probability ?? 1 }])
      return async () => sandbox.clearFaults()
    case "service_timeout":
      // longer than the plugin's deadline (PAYIN_TIMEOUT_MS 3000 in the soak)
      sandbox.setFaults([{ route: "*", delayMs: 5_000, probability: f.probability ?? 1 }])
      return async () => sandbox.clearFaults()
    case "service_slow":
      // slow but within the plugin's deadline (PAYIN_TIMEOUT_MS 3000): every call answered late
      sandbox.setFaults([{ route: "*", delayMs: f.delayMs ?? 1_000, probability: 1 }])
      return async () => sandbox.clearFaults()
    case "webhooks_dropped":
      topology.webhooks = "drop"
      return async () => void (topology.webhooks = "pass")
    case "webhook_url_broken":
      topology.webhooks = f.broken === "close" ? "close" : "502"
      return async () => void (topology.webhooks = "pass")
    case "webhooks_shuffled":
      sandbox.updateMerchant({ webhookMode: "shuffled", webhookShuffleWindowMs: 2_000 })
      return async () => void sandbox.updateMerchant({ webhookMode: "in_order" })
    case "webhooks_delayed":
      sandbox.updateMerchant({ webhookMode: "delayed", webhookDelayMs: 3_000 })
      return async () => void sandbox.updateMerchant({ webhookMode: "in_order" })
    case "webhooks_duplicated":
      topology.duplicateWebhooks = true
      return async () => void (topology.duplicateWebhooks = false)
  }
}

export type FaultRun = { records: FaultRecord[]; /** Ends the fault under way at once and skips the rest; resolves when all is restored. */ stop(): Promise<void> }

/** Runs `plan` from `startedAt` on; each lane one fault at a time, a fault begun late keeps its length. */
export function runFaults(topology: Topology, plan: PlannedFault[], startedAt: number, log: (line: string) => void): FaultRun {
  const records: FaultRecord[] = plan.map((f) => ({ ...f }))
  let stopping = false
  let wake: () => void = () => undefined
  const stopped = new Promise<void>((r) => (wake = r))
  const lane = async (name: Lane) => {
    for (const f of records.filter((r) => r.lane === name)) {
      const wait = startedAt + f.atMs - Date.now()
      if (wait > 0) await Promise.race([sleep(wait), stopped])
      if (stopping) {
        f.skipped = "the load had ended"
        continue
      }
      let end: (() => Promise<void>) | undefined
      try {
        f.startedAt = Date.now()
        end = await begin(topology, f)
        const how = [f.probability !== undefined && `probability ${f.probability}`, f.delayMs !== undefined && `delay ${f.delayMs} ms`, f.broken && `answers ${f.broken}`]
        log(`fault ${f.kind} began (${[`${f.forMs} ms`, ...how.filter(Boolean)].join(", ")})`)
        await Promise.race([sleep(f.forMs), stopped])
      } catch (error: any) {
        f.error = String(error?.message ?? error).slice(0, 500)
      }
      try {
        await end?.()
      } catch (error: any) {
        f.error = [f.error, `ending: ${String(error?.message ?? error).slice(0, 500)}`].filter(Boolean).join("; ")
      }
      f.endedAt = Date.now()
      log(`fault ${f.kind} ended after ${f.endedAt - f.startedAt!} ms${f.error ? ` (error: ${f.error})` : ""}`)
    }
  }
  const lanes = Promise.all([lane("process"), lane("service")])
  return {
    records,
    async stop() {
      stopping = true
      wake()
      await lanes
    },
  }
}
