import { overdueAfterMs } from "../../modules/payin/job-runs/job-runs"
import { CHECK_EVERY_MS, overdueCause, timerRuns } from "../schedule-watchdog"

const NOW = Date.parse("2026-11-27T12:00:00Z")
const WINDOW = 11 * 60_000

describe("an overdue job's cause names only what the process sees", () => {
  it("Medusa still calls the job here: its runs do not finish, whatever the scheduler", () => {
    for (const scheduler of ["redis", "in-process"] as const) {
      const cause = overdueCause({ lastTickAt: NOW - 5_000, windowMs: WINDOW, now: NOW, scheduler })
      expect(cause).toMatch(/^Medusa calls it in this process .*but no run finished/)
      expect(cause).not.toMatch(/Redis/)
    }
  })

  it("Medusa stopped calling it: Redis named only when the schedules are kept there", () => {
    const redis = overdueCause({ lastTickAt: NOW - WINDOW - 1, windowMs: WINDOW, now: NOW, scheduler: "redis" })
    expect(redis).toMatch(/has not called it in this process since 2026-11-27T11:48:59\.999Z; its schedules are kept in Redis/)
    expect(redis).toMatch(/restart the workers/)
    const local = overdueCause({ lastTickAt: NOW - WINDOW - 1, windowMs: WINDOW, now: NOW, scheduler: "in-process" })
    expect(local).toBe("Medusa's in-process scheduler has not called it in this process since 2026-11-27T11:48:59.999Z")
    expect(overdueCause({ lastTickAt: undefined, windowMs: WINDOW, now: NOW, scheduler: "in-process" })).not.toMatch(/Redis|since/)
  })
})

describe("the plugin's timer runs a job before the health could see it overdue (soak seed 1: jobs_overdue flapped after Redis lost Medusa's schedules)", () => {
  it("runs it once two checks remain before overdue, never while Medusa's ticks keep it on schedule", () => {
    for (const interval of [5, 10, 300, 600]) {
      const run = (ageMs: number) => ({ last_run_at: new Date(NOW - ageMs), interval_seconds: interval })
      const overdue = overdueAfterMs(interval)
      // Medusa runs it every interval: one interval and a tick late is still its own
      expect(timerRuns(run(interval * 1000 + 5_000), interval, NOW)).toBe(false)
      expect(timerRuns(run(overdue - 2 * CHECK_EVERY_MS - 1), interval, NOW)).toBe(false)
      expect(timerRuns(run(overdue - 2 * CHECK_EVERY_MS + 1), interval, NOW)).toBe(true)
      // the check after it still leaves a check before the health would call it overdue
      expect(overdue - (overdue - 2 * CHECK_EVERY_MS + CHECK_EVERY_MS)).toBeGreaterThanOrEqual(CHECK_EVERY_MS)
    }
    expect(timerRuns(null, 5, NOW)).toBe(true)
  })
})
