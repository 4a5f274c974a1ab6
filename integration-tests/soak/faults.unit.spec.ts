import { PROCESS_FAULTS, SERVICE_FAULTS, planFaults } from "./faults"
import { Prng } from "./prng"

describe("planFaults", () => {
  it.each([1, 2, 83, 4242])("a 3-minute run of seed %i holds every fault kind, each lane's kinds first and once", (seed) => {
    const plan = planFaults(new Prng(seed), 3 * 60_000)
    for (const lane of ["process", "service"] as const) {
      const kinds = lane === "process" ? PROCESS_FAULTS : SERVICE_FAULTS
      const ofLane = plan.filter((f) => f.lane === lane)
      expect(new Set(ofLane.slice(0, kinds.length).map((f) => f.kind))).toEqual(new Set(kinds))
      // one at a time per lane: the next planned after the last one's length
      ofLane.slice(1).forEach((f, i) => expect(f.atMs).toBeGreaterThan(ofLane[i].atMs + ofLane[i].forMs))
    }
    expect(plan.every((f) => f.atMs < 3 * 60_000 - 20_000)).toBe(true)
  })

  it("is the seed's alone, and a longer run goes on by weight after the covering round", () => {
    expect(planFaults(new Prng(5), 30 * 60_000)).toEqual(planFaults(new Prng(5), 30 * 60_000))
    const long = planFaults(new Prng(5), 30 * 60_000)
    expect(long.length).toBeGreaterThan(PROCESS_FAULTS.length + SERVICE_FAULTS.length + 30)
    expect(long.filter((f) => f.lane === "service" && f.forMs > 15_000).length).toBeGreaterThan(0)
  })

  it("on a staging server's PostgreSQL (--database-url) restarts no PostgreSQL and still covers every other kind", () => {
    const plan = planFaults(new Prng(1), 3 * 60_000, { postgres: false })
    expect(plan.some((f) => f.kind.startsWith("postgres"))).toBe(false)
    expect(new Set(plan.map((f) => f.kind))).toEqual(new Set([...PROCESS_FAULTS.filter((k) => !k.startsWith("postgres")), ...SERVICE_FAULTS]))
    expect(planFaults(new Prng(1), 30 * 60_000, { postgres: false }).some((f) => f.kind.startsWith("postgres"))).toBe(false)
  })
})
