import { RollupLockTimeoutError } from "../../modules/payin/insights/rebuild"
import type { RebuildState } from "../../modules/payin/insights/insights"
import { LOCK_TRIES, type RebuildOptions, duration, parseArgs, progressLine, runRebuild } from "../rebuild-insights"

const finished: RebuildState = { pending: false, done: 40, after_id: "", started_at: "2026-11-27T10:00:00.000Z", finished_at: "2026-11-27T10:00:05.000Z" }
const pending: RebuildState = { pending: true, done: 0, after_id: "", started_at: "2026-11-27T10:00:00.000Z", finished_at: null }

/** A rebuild over fake rollups: `batches` answers each batch call in turn (a number, or a lock timeout). */
function harness(initial: RebuildState, batches: (number | "busy")[] = []) {
  let state = initial
  const calls: string[] = []
  const lines: string[] = []
  const rollups = {
    restart: jest.fn(async () => {
      calls.push("restart")
      state = { ...pending }
    }),
    batch: jest.fn(async () => {
      const next = batches.shift() ?? 0
      calls.push(`batch:${next}`)
      if (next === "busy") throw new RollupLockTimeoutError(5000)
      state = next === 0 ? { ...state, pending: false, finished_at: "2026-11-28T00:00:00.000Z" } : { ...state, done: state.done + next }
      return next
    }),
    remaining: jest.fn(async () => 10),
    check: jest.fn(async () => {
      calls.push("check")
      return { agree: true, differences: 0, rows: state.done }
    }),
  }
  const run = (options: Partial<RebuildOptions>) =>
    runRebuild({ state: async () => state, rollups }, { restart: false, check: false, batch: 2000, ...options }, {
      print: async (line) => void lines.push(line),
      stopping: () => false,
      guard: () => {},
      sleep: async () => {},
    })
  return { run, calls, lines }
}

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

  it("does nothing after a finished rebuild when run bare: only restart empties the rollups", async () => {
    const bare = harness(finished)
    expect(await bare.run({})).toBe(0)
    expect(bare.calls).toEqual([])
    expect(bare.lines).toEqual([
      "payin insights: the rollups are up to date (rebuilt 2026-11-27T10:00:05.000Z): nothing to do; restart rebuilds them from the ledger, check compares them with it",
    ])
    const check = harness(finished)
    expect(await check.run({ check: true })).toBe(0)
    expect(check.calls).toEqual(["check"])
    const restart = harness(finished, [3])
    expect(await restart.run({ restart: true })).toBe(0)
    expect(restart.calls).toEqual(["restart", "batch:3", "batch:0"])
  })

  it("tries a batch again when the ledger's writers held it past the lock timeout, and stops after too many in a row", async () => {
    const once = harness(pending, ["busy", "busy", 5])
    expect(await once.run({})).toBe(0)
    expect(once.calls).toEqual(["batch:busy", "batch:busy", "batch:5", "batch:0"])
    expect(once.lines.filter((l) => /the ledger is busy/.test(l))).toHaveLength(2)
    expect(once.lines.at(-1)).toMatch(/^payin insights: rebuilt 5 pay-ins in \d+ s$/)

    const stuck = harness(pending, [2, ...Array(LOCK_TRIES).fill("busy")])
    expect(await stuck.run({ check: true })).toBe(1)
    expect(stuck.calls.filter((c) => c === "batch:busy")).toHaveLength(LOCK_TRIES)
    expect(stuck.calls).not.toContain("check")
    expect(stuck.lines.at(-1)).toBe(`payin insights: the ledger stayed busy (${LOCK_TRIES} tries); stopped after 2 pay-ins; run the command again to go on`)
  })
})
