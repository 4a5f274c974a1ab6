import { jobOverdue, judgedInterval, overdueAfterMs } from "../job-runs"

const ran = (msAgo: number, now: number, interval_seconds: number | null = null) => ({ last_run_at: new Date(now - msAgo), interval_seconds })

describe("jobOverdue", () => {
  const now = Date.parse("2026-11-28T12:00:00Z")
  it("is overdue when it never ran", () => {
    expect(jobOverdue(null, 300, now)).toBe(true)
  })
  it("allows two intervals plus a slack of one more, between 15 s and a minute", () => {
    expect(jobOverdue(ran(660_000, now), 300, now)).toBe(false)
    expect(jobOverdue(ran(661_000, now), 300, now)).toBe(true)
    expect(jobOverdue(ran(90_000, now), 30, now)).toBe(false)
    expect(jobOverdue(ran(91_000, now), 30, now)).toBe(true)
    expect(jobOverdue(ran(35_000, now), 10, now)).toBe(false)
    expect(jobOverdue(ran(36_000, now), 10, now)).toBe(true)
    expect(overdueAfterMs(60)).toBe(180_000)
  })
  it("judges a run by the interval it ran under when the setting was lowered since", () => {
    // ran under 300 s, 280 s ago; the setting is now 10 s: not overdue (its next run comes at the next tick)
    expect(jobOverdue(ran(280_000, now, 300), 10, now)).toBe(false)
    expect(jobOverdue(ran(661_000, now, 300), 10, now)).toBe(true)
  })
  it("judges a run by the new interval when the setting was raised since", () => {
    // ran under 10 s, 200 s ago; the setting is now 300 s: its next run is not due before 300 s
    expect(jobOverdue(ran(200_000, now, 10), 300, now)).toBe(false)
    expect(jobOverdue(ran(661_000, now, 10), 300, now)).toBe(true)
  })
})

describe("judgedInterval", () => {
  it("is the longer of the run's and the current interval; the current one for a run that recorded none", () => {
    expect(judgedInterval({ interval_seconds: 300 }, 10)).toBe(300)
    expect(judgedInterval({ interval_seconds: 10 }, 300)).toBe(300)
    expect(judgedInterval({ interval_seconds: null }, 60)).toBe(60)
    expect(judgedInterval(null, 60)).toBe(60)
  })
})
