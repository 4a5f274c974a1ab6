import { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { PAYIN_MODULE } from "../modules/payin/key"
import { errorMessage } from "../client/errors"
import { type JobRun, jobOverdue, judgedInterval } from "../modules/payin/job-runs/job-runs"
import type PayinModuleService from "../modules/payin/service"

/** Medusa calls each job at least once per its interval, and the reconciliation job every 5 s: one tick late is still "calls it". */
const MEDUSA_TICK_SECONDS = 5
/** How often each watched job's last run is read (one small query per job). */
export const CHECK_EVERY_MS = 5_000

const watched = new Set<string>()
/** When Medusa's scheduler last called each job in this process. */
const lastTick = new Map<string, number>()

export type Scheduler = "redis" | "in-process"

/**
 * Why a job is overdue, from what this process can see: whether Medusa still calls the job here,
 * and where Medusa keeps its schedules. Never a cause it cannot see.
 */
export function overdueCause(input: { lastTickAt: number | undefined; windowMs: number; now: number; scheduler: Scheduler }): string {
  const { lastTickAt, windowMs, now, scheduler } = input
  if (lastTickAt !== undefined && now - lastTickAt <= windowMs) {
    return `Medusa calls it in this process (last at ${new Date(lastTickAt).toISOString()}), but no run finished: see its errors above`
  }
  const since = lastTickAt === undefined ? "" : ` since ${new Date(lastTickAt).toISOString()}`
  return scheduler === "redis"
    ? `Medusa's scheduler has not called it in this process${since}; its schedules are kept in Redis, which loses them when it restarts without its data: restart the workers to restore them`
    : `Medusa's in-process scheduler has not called it in this process${since}`
}

/**
 * The plugin's timer runs a job once two checks remain before it would be overdue: the health never
 * sees overdue a job that a live worker can run (after Redis lost Medusa's schedules it flapped, soak
 * seed 1), and Medusa's own ticks, every interval, never leave it that late.
 */
export function timerRuns(last: Pick<JobRun, "last_run_at" | "interval_seconds"> | null, intervalSeconds: number, now = Date.now()): boolean {
  return jobOverdue(last, intervalSeconds, now + 2 * CHECK_EVERY_MS)
}

function schedulerOf(container: MedusaContainer): Scheduler {
  try {
    const config = container.resolve(ContainerRegistrationKeys.CONFIG_MODULE) as { modules?: Record<string, unknown> }
    const engine = config.modules?.[Modules.WORKFLOW_ENGINE] as { resolve?: unknown } | undefined
    return typeof engine?.resolve === "string" && engine.resolve.includes("redis") ? "redis" : "in-process"
  } catch {
    return "in-process"
  }
}

/** Medusa keeps its scheduled jobs in Redis, lost with Redis's data until the workers restart: an overdue job is run here. */
export function keepScheduled(
  name: string,
  container: MedusaContainer,
  run: (container: MedusaContainer) => Promise<unknown>,
  intervalSeconds: (payin: PayinModuleService) => Promise<number>
): void {
  lastTick.set(name, Date.now())
  if (watched.has(name)) return
  watched.add(name)
  let warned = false
  let running = false
  // a job that never ran is judged from when this process began watching it, as the health does
  const since = new Date()
  const timer = setInterval(async () => {
    if (running) return
    running = true
    try {
      const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
      const last = await payin.jobs.last(name)
      const interval = await intervalSeconds(payin)
      if (!timerRuns(last ?? { last_run_at: since, interval_seconds: null }, interval)) {
        if (warned) container.resolve("logger").info(`payin: ${name} runs on schedule again`)
        warned = false
        return
      }
      if (!warned) {
        warned = true
        const cause = overdueCause({ lastTickAt: lastTick.get(name), windowMs: (judgedInterval(last, interval) + MEDUSA_TICK_SECONDS) * 1000, now: Date.now(), scheduler: schedulerOf(container) })
        const ran = last?.last_run_at ? `no run finished since ${new Date(last.last_run_at).toISOString()}` : "it never ran"
        container.resolve("logger").warn(`payin: ${name} is almost overdue (due every ${interval} s, ${ran}): ${cause}. The plugin's own timer runs it until Medusa does again`)
      }
      await run(container)
      const after = await payin.jobs.last(name)
      if (after && +new Date(after.last_run_at) !== +new Date(last?.last_run_at ?? 0)) await payin.jobs.markRunByTimer(name)
    } catch (error) {
      try {
        container.resolve("logger").warn(`payin: checking ${name}'s schedule failed: ${errorMessage(error)}`)
      } catch {
        // the container is gone (the process is shutting down)
      }
    } finally {
      running = false
    }
  }, CHECK_EVERY_MS)
  timer.unref?.()
}
