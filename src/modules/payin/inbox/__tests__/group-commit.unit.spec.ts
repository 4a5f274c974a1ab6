import { GroupCommit } from "../group-commit"

/** A write the test finishes by hand: what each call was given, and its resolver. */
function heldWrites() {
  const calls: { items: number[]; done: (results?: string[]) => void; fail: (e: Error) => void }[] = []
  const write = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({ items, done: (results) => resolve(results ?? items.map((i) => `r${i}`)), fail: reject })
    })
  return { calls, write }
}
const tick = () => new Promise((r) => setImmediate(r))

describe("GroupCommit", () => {
  it("writes an item at once when idle, and what arrives meanwhile together in the next write", async () => {
    const { calls, write } = heldWrites()
    const g = new GroupCommit(write)
    const first = g.submit(1)
    await tick()
    expect(calls.map((c) => c.items)).toEqual([[1]])
    const rest = [g.submit(2), g.submit(3), g.submit(4)]
    await tick()
    expect(calls).toHaveLength(1)
    calls[0].done()
    expect(await first).toBe("r1")
    await tick()
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]])
    calls[1].done()
    expect(await Promise.all(rest)).toEqual(["r2", "r3", "r4"])
    expect(g.waiting).toBe(0)
  })

  it("bounds a batch, and starts again from idle after the queue ran dry", async () => {
    const { calls, write } = heldWrites()
    const g = new GroupCommit(write, 2)
    const all = [g.submit(1), g.submit(2), g.submit(3), g.submit(4), g.submit(5)]
    await tick()
    for (let k = 0; k < 3; k++) {
      calls[k].done()
      await tick()
    }
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3], [4, 5]])
    expect(await Promise.all(all)).toEqual(["r1", "r2", "r3", "r4", "r5"])
    const later = g.submit(6)
    await tick()
    calls[3].done()
    expect(await later).toBe("r6")
    expect(calls[3].items).toEqual([6])
  })

  it("a failed write rejects its own batch only; a write answering the wrong number of results fails its batch", async () => {
    const { calls, write } = heldWrites()
    const g = new GroupCommit(write)
    const first = g.submit(1)
    await tick()
    const second = [g.submit(2), g.submit(3)]
    calls[0].fail(new Error("database gone"))
    await expect(first).rejects.toThrow("database gone")
    await tick()
    calls[1].done(["only one"])
    await expect(second[0]).rejects.toThrow("a batch of 2 was written with 1 results")
    await expect(second[1]).rejects.toThrow("a batch of 2 was written with 1 results")
    const third = g.submit(4)
    await tick()
    calls[2].done()
    expect(await third).toBe("r4")
  })
})
