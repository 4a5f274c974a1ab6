import { coalesced } from "../coalesced"

const tick = () => new Promise((r) => setImmediate(r))

describe("coalesced", () => {
  it("sends at once when idle; fired during a send, sends once more after it, however many times fired", async () => {
    const sends: (() => void)[] = []
    const fire = coalesced(() => new Promise<void>((r) => sends.push(r)), 3_000)
    fire()
    await tick()
    expect(sends).toHaveLength(1)
    fire()
    fire()
    fire()
    await tick()
    expect(sends).toHaveLength(1)
    sends[0]()
    await tick()
    expect(sends).toHaveLength(2)
    sends[1]()
    await tick()
    expect(sends).toHaveLength(2)
    fire()
    await tick()
    expect(sends).toHaveLength(3)
  })

  it("a failed send does not stop the next; a send unsettled past staleMs no longer holds the next back", async () => {
    let clock = 0
    let calls = 0
    const hung: (() => void)[] = []
    const fire = coalesced(
      () => {
        calls++
        return calls === 1 ? Promise.reject(new Error("bus gone")) : new Promise<void>((r) => hung.push(r))
      },
      3_000,
      () => clock
    )
    fire()
    await tick()
    fire()
    await tick()
    expect(calls).toBe(2)
    // the second never settles (Redis down): held back until it is stale, then sent anew
    fire()
    await tick()
    expect(calls).toBe(2)
    clock = 3_000
    fire()
    await tick()
    expect(calls).toBe(3)
    // the stale one settling late changes nothing
    hung[0]()
    await tick()
    expect(calls).toBe(3)
  })
})

describe("coalesced with a gap", () => {
  it("fired during a send, sends the next one no sooner than gapMs after the previous started; idle, at once", async () => {
    let clock = 0
    const sends: (() => void)[] = []
    const fire = coalesced(() => new Promise<void>((r) => sends.push(r)), 3_000, () => clock, 40)
    fire()
    await tick()
    expect(sends).toHaveLength(1)
    fire()
    fire()
    clock = 10
    sends[0]()
    await tick()
    // settled 10 ms after it started: the merged fires wait for the gap (real 30 ms timer)
    expect(sends).toHaveLength(1)
    fire()
    await tick()
    expect(sends).toHaveLength(1)
    clock = 40
    await new Promise((r) => setTimeout(r, 60))
    expect(sends).toHaveLength(2)
    clock = 100
    sends[1]()
    await tick()
    expect(sends).toHaveLength(2)
    // idle: at once
    fire()
    await tick()
    expect(sends).toHaveLength(3)
  })
})
