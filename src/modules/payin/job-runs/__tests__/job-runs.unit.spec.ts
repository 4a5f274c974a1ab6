import { jobOverdue } from "../job-runs"

describe("jobOverdue", () => {
  const now = Date.parse("2026-11-23T12:00:00Z")
  it("is overdue when the job never ran (no worker or shared process runs jobs)", () => {
    expect(jobOverdue(null, 300, now)).toBe(true)
  })
  it("allows two intervals plus a minute since the last run", () => {
    expect(jobOverdue(new Date(now - 660_000), 300, now)).toBe(false)
    expect(jobOverdue(new Date(now - 661_000), 300, now)).toBe(true)
    expect(jobOverdue(new Date(now - 70_000), 10, now)).toBe(false)
    expect(jobOverdue(new Date(now - 81_000), 10, now)).toBe(true)
  })
})
