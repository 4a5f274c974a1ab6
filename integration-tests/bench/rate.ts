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
