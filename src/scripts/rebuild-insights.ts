import type { ExecArgs } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../modules/payin/key"
import type { RebuildState } from "../modules/payin/insights/insights"
import { RollupLockTimeoutError, type RollupRebuild } from "../modules/payin/insights/rebuild"
import type PayinModuleService from "../modules/payin/service"
import { withLock } from "../money-path/lock"

/**
 * `npx medusa exec ./node_modules/medusa-plugin-payin/.medusa/server/src/scripts/rebuild-insights.js [restart] [check] [batch=N]`
 *
 * Rolls the insights up from the ledger (README "Insights"): goes on from where the last run
 * stopped (Ctrl-C stops it after the batch in hand); after a finished rebuild it does nothing.
 * `restart` empties the rollups and starts over; `check` compares the rollups with the ledger
 * afterwards, in one snapshot, holding no lock writers wait for (exit code 1 when they differ). A
 * batch waits at most 5 s for the ledger's writers, is tried again, and after 5 tries in a row
 * the run stops (exit code 1; run it again). Prints its progress every second: pay-ins done, of
 * how many, the rate and the time left.
 */
export default async function rebuildInsights({ container, args }: ExecArgs): Promise<void> {
  const options = parseArgs(args ?? [])
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  // written before going on: `medusa exec` exits the process as soon as the script returns, and a
  // pipe's pending writes would be lost
  const print = (line: string) => new Promise<void>((resolve) => process.stdout.write(`${line}\n`, () => resolve()))
  let stopping = false
  const stop = () => {
    stopping = true
  }
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
  try {
    await withLock(
      container,
      "payin:insights-rebuild",
      async (hold) => {
        const code = await runRebuild({ state: () => payin.insights.rebuildState(), rollups: payin.rollups }, options, {
          print,
          stopping: () => stopping,
          guard: () => hold.throwIfLost(),
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        })
        if (code) process.exitCode = code
      },
      { waitMs: 0, expireSeconds: 60 }
    )
  } finally {
    process.removeListener("SIGINT", stop)
    process.removeListener("SIGTERM", stop)
  }
}

/** Lock timeouts in a row after which a run stops. */
export const LOCK_TRIES = 5

export type RebuildParts = {
  state: () => Promise<RebuildState>
  rollups: Pick<RollupRebuild, "restart" | "batch" | "remaining" | "check">
}
export type RebuildIo = {
  print: (line: string) => Promise<void>
  stopping: () => boolean
  /** Throws when the run's lock was lost. */
  guard: () => void
  sleep: (ms: number) => Promise<void>
}

/** The command's steps; answers its exit code (1: stopped on a busy ledger, or the rollups differ). */
export async function runRebuild({ state: read, rollups }: RebuildParts, options: RebuildOptions, io: RebuildIo): Promise<number> {
  const { print } = io
  const count = (n: number) => n.toLocaleString("en-US")
  let code = 0
  let busy = 0
  /** A step that waits on the ledger's writers: tried again after a lock timeout, until LOCK_TRIES in a row. */
  const step = async <T>(work: () => Promise<T>): Promise<T | null> => {
    for (;;) {
      try {
        const result = await work()
        busy = 0
        return result
      } catch (error) {
        if (!(error instanceof RollupLockTimeoutError)) throw error
        if (++busy >= LOCK_TRIES) return null
        await print(`payin insights: the ledger is busy (${error.message}): trying again`)
        await io.sleep(1000 * busy)
        io.guard()
      }
    }
  }
  let state = await read()
  if (options.restart) {
    if ((await step(() => rollups.restart())) === null) {
      await print(`payin insights: the ledger stayed busy (${LOCK_TRIES} tries): nothing was changed; run the command again`)
      return 1
    }
    state = await read()
    await print("payin insights: rebuilding from the first pay-in")
  } else if (state.pending) {
    await print(`payin insights: going on after ${count(state.done)} pay-ins`)
  } else if (!options.check) {
    await print(
      `payin insights: the rollups are up to date (rebuilt ${state.finished_at ?? "by the migration"}): nothing to do; ` +
        "restart rebuilds them from the ledger, check compares them with it"
    )
    return 0
  }
  const total = state.done + (state.pending ? await rollups.remaining(state) : 0)
  const started = Date.now()
  let done = state.done
  let lastPrint = 0
  while (state.pending && !io.stopping()) {
    io.guard()
    const n = await step(() => rollups.batch(options.batch))
    if (n === null) {
      code = 1
      break
    }
    if (n === 0) break
    done += n
    if (Date.now() - lastPrint >= 1000) {
      await print(progressLine(done, total, done - state.done, Date.now() - started))
      lastPrint = Date.now()
    }
  }
  const after = await read()
  if (after.pending) {
    const why = code ? `the ledger stayed busy (${LOCK_TRIES} tries); stopped` : "stopped"
    await print(`payin insights: ${why} after ${count(after.done)} pay-ins; run the command again to go on`)
  } else if (state.pending) {
    await print(`payin insights: rebuilt ${count(after.done)} pay-ins in ${duration(Date.now() - started)}`)
  }
  if (options.check && !after.pending) {
    const check = await rollups.check()
    await print(
      check.agree
        ? `payin insights: the rollups agree with the ledger (${count(check.rows)} pay-ins)`
        : `payin insights: the rollups differ from the ledger in ${check.differences} rows: run it again with restart`
    )
    if (!check.agree) code = 1
  }
  return code
}

export type RebuildOptions = { restart: boolean; check: boolean; batch: number }

/**
 * `restart`, `check`, `batch=N` (100 to 50,000; default 2,000), also with a leading `--`; anything
 * else is refused. The Medusa CLI passes `medusa exec <file> <args…>` only as bare words: it refuses
 * unknown `--options`, and hands nothing after a `--` to the script.
 */
export function parseArgs(args: string[]): RebuildOptions {
  const options: RebuildOptions = { restart: false, check: false, batch: 2000 }
  for (const raw of args) {
    const arg = raw.replace(/^--/, "")
    const batch = /^batch=(\d+)$/.exec(arg)
    if (arg === "restart") options.restart = true
    else if (arg === "check") options.check = true
    else if (batch && Number(batch[1]) >= 100 && Number(batch[1]) <= 50_000) options.batch = Number(batch[1])
    else throw new Error(`rebuild-insights: unknown argument ${raw} (use restart, check, batch=100..50000)`)
  }
  return options
}

/** "payin insights: 120,000 of 1,000,000 pay-ins (12.0%), 8,512/s, about 1 min 43 s left" */
export function progressLine(done: number, total: number, doneThisRun: number, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (doneThisRun * 1000) / elapsedMs : 0
  const left = rate > 0 ? ((Math.max(total - done, 0) / rate) * 1000) : null
  const percent = total > 0 ? ((done / total) * 100).toFixed(1) : "100.0"
  return (
    `payin insights: ${done.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} pay-ins (${percent}%), ` +
    `${Math.round(rate).toLocaleString("en-US")}/s, ${left === null ? "time left unknown" : `about ${duration(left)} left`}`
  )
}

/** "2 h 5 min", "1 min 43 s", "7 s". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
  if (s >= 60) return `${Math.floor(s / 60)} min ${s % 60} s`
  return `${s} s`
}
