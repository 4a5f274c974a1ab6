import { performance } from "perf_hooks"
import { Pool } from "undici"

export type BenchRequest = { method: "GET" | "POST"; path: string; headers?: Record<string, string>; body?: string }
export type Rate = { rps: number; count: number; statuses: Record<number, number> }

/** Requests per second over `seconds` with `connections` in flight; `next(i)` builds request i (null: stop). */
export async function rate(base: string, connections: number, seconds: number, next: (i: number) => BenchRequest | null): Promise<Rate> {
  const pool = new Pool(base, { connections })
  const deadline = performance.now() + seconds * 1000
  const statuses: Record<number, number> = {}
  let i = 0
  let count = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const req = next(i++)
        if (!req) return
        const res = await pool.request(req)
        await res.body.text()
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1
        count++
      }
    })
  )
  const elapsed = (performance.now() - started) / 1000
  await pool.close()
  return { rps: count / elapsed, count, statuses }
}

export type Batch = { ms: number; rps: number; count: number; statuses: Record<number, number>; bodies: string[]; p50: number; p99: number }

/**
 * Sends every request of `requests` (prepared beforehand), `connections` in flight, and times the
 * whole batch; answers are kept (in request order) for checks made after the clock stopped.
 */
export async function batch(base: string, connections: number, requests: BenchRequest[]): Promise<Batch> {
  const pool = new Pool(base, { connections })
  const statuses: Record<number, number> = {}
  const bodies: string[] = new Array(requests.length)
  const latencies: number[] = new Array(requests.length)
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: Math.min(connections, requests.length) }, async () => {
      while (next < requests.length) {
        const i = next++
        const sent = performance.now()
        const res = await pool.request(requests[i])
        bodies[i] = await res.body.text()
        latencies[i] = performance.now() - sent
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1
      }
    })
  )
  const ms = performance.now() - started
  await pool.close()
  const sorted = [...latencies].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0
  return { ms, rps: requests.length / (ms / 1000), count: requests.length, statuses, bodies, p50: at(0.5), p99: at(0.99) }
}
