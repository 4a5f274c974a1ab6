import { jobOverdue, overdueAfterMs } from "../job-runs"

describe("jobOverdue", () => {
  const now = Date.parse("2026-11-23T12:00:00Z")
  it("is overdue when the job never ran (no worker or shared process runs jobs)", () => {
    expect(jobOverdue(null, 300, now)).toBe(true)
  })
  it("allows two intervals plus one more between 15 s and a minute since the last run", () => {
    expect(jobOverdue(new Date(now - 660_000), 300, now)).toBe(false)
    expect(jobOverdue(new Date(now - 661_000), 300, now)).toBe(true)
    expect(jobOverdue(new Date(now - 90_000), 30, now)).toBe(false)
    expect(jobOverdue(new Date(now - 91_000), 30, now)).toBe(true)
    expect(jobOverdue(new Date(now - 35_000), 10, now)).toBe(false)
    expect(jobOverdue(new Date(now - 36_000), 10, now)).toBe(true)
    expect(overdueAfterMs(60)).toBe(180_000)
  })
})
