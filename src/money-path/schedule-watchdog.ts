import { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../modules/payin/key"
import { errorMessage } from "../client/errors"
import { jobOverdue } from "../modules/payin/job-runs/job-runs"
import type PayinModuleService from "../modules/payin/service"

const CHECK_EVERY_MS = 15_000

const watched = new Set<string>()

/** Medusa keeps its scheduled jobs in Redis, lost with Redis's data until the workers restart: an overdue job is run here. */
export function keepScheduled(
  name: string,
  container: MedusaContainer,
  run: (container: MedusaContainer) => Promise<unknown>,
  intervalSeconds: (payin: PayinModuleService) => Promise<number>
): void {
  if (watched.has(name)) return
  watched.add(name)
  let warned = false
  let running = false
  const timer = setInterval(async () => {
    if (running) return
    running = true
    try {
      const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
      const last = await payin.jobs.last(name)
      if (!jobOverdue(last?.last_run_at ?? null, await intervalSeconds(payin))) {
        if (warned) container.resolve("logger").info(`payin: ${name} runs on schedule again`)
        warned = false
        return
      }
      if (!warned) {
        warned = true
        container
          .resolve("logger")
          .warn(
            `payin: ${name} is overdue (Medusa's scheduler lost its jobs? Redis restarted without its data): ` +
              `run by the plugin's own timer meanwhile; restart the workers to restore Medusa's schedules`
          )
      }
      await run(container)
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
