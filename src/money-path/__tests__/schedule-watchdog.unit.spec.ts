import { overdueCause } from "../schedule-watchdog"

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
