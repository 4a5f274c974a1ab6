import { LockLostError, LockTimeoutError, withLock } from "../lock"

/** Medusa's locking module as its providers behave: a key held by another owner is refused; its owner extends it. */
function fakeContainer() {
  const keys = new Map<string, { ownerId: string; expiresAt: number }>()
  const calls = { acquire: 0 }
  const locking = {
    async acquire(key: string, { ownerId, expire }: { ownerId: string; expire: number }) {
      calls.acquire++
      const held = keys.get(key)
      if (held && held.ownerId !== ownerId && held.expiresAt > Date.now()) throw new Error(`"${key}" is already locked.`)
      keys.set(key, { ownerId, expiresAt: Date.now() + expire * 1000 })
    },
    async release(key: string, { ownerId }: { ownerId: string }) {
      if (keys.get(key)?.ownerId === ownerId) keys.delete(key)
    },
  }
  const warnings: string[] = []
  const container = {
    resolve(name: string) {
      if (name === "locking") return locking
      if (name === "logger") return { warn: (m: string) => warnings.push(m) }
      // __pg_connection__ (clearExpiredLock): no `locking` table here
      return { raw: async () => Promise.reject(Object.assign(new Error("no table"), { code: "42P01" })) }
    },
  } as any
  return { container, keys, calls, warnings }
}

describe("withLock", () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"] }))
  afterEach(() => jest.useRealTimers())

  it("extends the lock every third of its lifetime while the job runs, so nobody takes it past the lifetime", async () => {
    const { container, keys } = fakeContainer()
    let release!: () => void
    const job = withLock(container, "payin:1", () => new Promise<string>((r) => (release = () => r("done"))), { waitMs: 100, expireSeconds: 6 })
    await jest.advanceTimersByTimeAsync(0)
    const owner = keys.get("payin:1")!.ownerId
    // three lifetimes later the first holder still has it
    for (let i = 0; i < 9; i++) await jest.advanceTimersByTimeAsync(2_000)
    expect(keys.get("payin:1")).toMatchObject({ ownerId: owner })
    expect(keys.get("payin:1")!.expiresAt).toBeGreaterThan(Date.now())
    const other = withLock(container, "payin:1", async () => "ran", { waitMs: 1_000, expireSeconds: 6 }).catch((e) => e)
    await jest.advanceTimersByTimeAsync(1_500)
    expect(await other).toBeInstanceOf(LockTimeoutError)
    release()
    expect(await job).toBe("done")
    expect(keys.has("payin:1")).toBe(false)
  })

  it("aborts the hold when an extension fails: the job's next check throws LockLostError", async () => {
    const { container, keys, warnings } = fakeContainer()
    let hold: any
    let release!: () => void
    const job = withLock(
      container,
      "payin:2",
      async (h) => {
        hold = h
        await new Promise<void>((r) => (release = r))
        h.throwIfLost()
        return "ran the external step"
      },
      { waitMs: 100, expireSeconds: 6 }
    ).catch((e) => e)
    await jest.advanceTimersByTimeAsync(0)
    expect(() => hold.throwIfLost()).not.toThrow()
    // another owner took the key (its expiry passed while this process stalled, or it was cleared)
    keys.set("payin:2", { ownerId: "other", expiresAt: Date.now() + 60_000 })
    await jest.advanceTimersByTimeAsync(2_000)
    expect(hold.signal.aborted).toBe(true)
    release()
    expect(await job).toBeInstanceOf(LockLostError)
    expect(warnings.join("\n")).toMatch(/lost the lock payin:2/)
    // the other owner's lock is left alone
    expect(keys.get("payin:2")).toMatchObject({ ownerId: "other" })
  })

  it("counts the lock lost when it was not extended within its lifetime (the process stalled)", async () => {
    const { container } = fakeContainer()
    let hold: any
    let release!: () => void
    const job = withLock(
      container,
      "payin:3",
      async (h) => {
        hold = h
        await new Promise<void>((r) => (release = r))
        return "done"
      },
      { waitMs: 100, expireSeconds: 6 }
    )
    await jest.advanceTimersByTimeAsync(0)
    // the clock jumps past the lifetime without the timers running (a blocked event loop)
    jest.setSystemTime(Date.now() + 7_000)
    expect(() => hold.throwIfLost()).toThrow(/Lost the lock payin:3: not extended within its 6 s lifetime/)
    release()
    expect(await job).toBe("done")
  })
})
