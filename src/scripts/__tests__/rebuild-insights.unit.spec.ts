import { duration, parseArgs, progressLine } from "../rebuild-insights"

describe("rebuild-insights command", () => {
  it("takes restart, check and batch=N (as medusa exec passes them, or with --), and refuses anything else", () => {
    expect(parseArgs([])).toEqual({ restart: false, check: false, batch: 2000 })
    expect(parseArgs(["restart", "check", "batch=500"])).toEqual({ restart: true, check: true, batch: 500 })
    expect(parseArgs(["--restart", "--check", "--batch=500"])).toEqual({ restart: true, check: true, batch: 500 })
    expect(() => parseArgs(["batch=10"])).toThrow(/unknown argument batch=10/)
    expect(() => parseArgs(["--force"])).toThrow(/use restart, check, batch=100..50000/)
  })

  it("prints pay-ins done, of how many, the rate and the time left", () => {
    expect(progressLine(120_000, 1_000_000, 100_000, 12_500)).toBe(
      "payin insights: 120,000 of 1,000,000 pay-ins (12.0%), 8,000/s, about 1 min 50 s left"
    )
    expect(progressLine(0, 0, 0, 0)).toBe("payin insights: 0 of 0 pay-ins (100.0%), 0/s, time left unknown")
    expect([duration(7_400), duration(103_000), duration(7_500_000)]).toEqual(["7 s", "1 min 43 s", "2 h 5 min"])
  })
})
