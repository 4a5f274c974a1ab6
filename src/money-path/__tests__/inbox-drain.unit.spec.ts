import type { MedusaContainer } from "@medusajs/framework/types"
import type { ClaimedEntry } from "../../modules/payin/inbox/inbox"
import { PAYIN_MODULE } from "../../modules/payin/key"
import { InboxDrain } from "../inbox"

/** An inbox of `n` due entries that hands each out once, and a container around it. */
function inbox(n: number, { failClaims = 0 } = {}) {
  const due: ClaimedEntry[] = Array.from({ length: n }, (_, i) => ({ id: `e${i}`, provider_id: "pp_payin_default", raw_body: "{}", created_at: new Date() }))
  const claims: number[] = []
  const warnings: string[] = []
  let failing = failClaims
  const container = {
    resolve: (key: string) =>
      key === PAYIN_MODULE
        ? {
            inbox: {
              claim: async (limit: number) => {
                claims.push(limit)
                if (failing-- > 0) throw new Error("the database is gone")
                return due.splice(0, limit)
              },
            },
          }
        : { warn: (m: string) => warnings.push(m) },
  } as unknown as MedusaContainer
  return { due, claims, warnings, container }
}

/** An apply that waits for the test to release it, counting how many run at once. */
function gatedApply() {
  let running = 0
  let peak = 0
  const applied: string[] = []
  const gates: (() => void)[] = []
  const apply = async (_c: MedusaContainer, entry: ClaimedEntry) => {
    running++
    peak = Math.max(peak, running)
    await new Promise<void>((r) => gates.push(r))
    running--
    applied.push(entry.id)
  }
  const releaseAll = async () => {
    while (gates.length || running) {
      gates.splice(0).forEach((g) => g())
      await new Promise((r) => setImmediate(r))
    }
  }
  return { apply, applied, peak: () => peak, releaseAll, pending: () => gates.length }
}

describe("InboxDrain", () => {
  it("applies every due entry, never more at once than its concurrency, claiming only free slots", async () => {
    const box = inbox(20)
    const gate = gatedApply()
    const drain = new InboxDrain(box.container, 3, gate.apply)
    const done = drain.drain()
    await new Promise((r) => setImmediate(r))
    expect(gate.pending()).toBe(3)
    await gate.releaseAll()
    await done
    expect(gate.applied.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `e${i}`).sort())
    expect(gate.peak()).toBe(3)
    expect(box.claims.every((limit) => limit >= 1 && limit <= 3)).toBe(true)
    expect(drain.active).toBe(0)
  })

  it("a wake-up while it runs makes it claim again instead of starting a second loop", async () => {
    const box = inbox(2)
    const gate = gatedApply()
    const drain = new InboxDrain(box.container, 4, gate.apply)
    const first = drain.wake()
    const second = drain.wake()
    expect(second).toBe(first)
    await first
    // stored meanwhile: the next wake claims them
    box.due.push({ id: "late", provider_id: "pp_payin_default", raw_body: "{}", created_at: new Date() })
    await drain.wake()
    await gate.releaseAll()
    await drain.settled()
    expect(gate.applied.sort()).toEqual(["e0", "e1", "late"])
  })

  it("a claim that fails is logged and ends the run; the next wake-up claims again", async () => {
    const box = inbox(2, { failClaims: 1 })
    const applied: string[] = []
    const drain = new InboxDrain(box.container, 4, async (_c, entry) => void applied.push(entry.id))
    await drain.wake()
    expect(box.warnings).toEqual([expect.stringContaining("could not claim webhooks to apply")])
    expect(applied).toEqual([])
    await drain.drain()
    expect(applied.sort()).toEqual(["e0", "e1"])
  })

  it("an apply that throws frees its slot, is logged, and the others go on", async () => {
    const box = inbox(3)
    const applied: string[] = []
    const drain = new InboxDrain(box.container, 1, async (_c, entry) => {
      if (entry.id === "e1") throw new Error("settle failed")
      applied.push(entry.id)
    })
    await drain.drain()
    expect(applied).toEqual(["e0", "e2"])
    expect(box.warnings).toEqual([expect.stringContaining("webhook e1 not applied (taken again after its lease)")])
  })
})
