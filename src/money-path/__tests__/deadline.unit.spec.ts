import { LATE, beforeDeadline } from "../inbox"
import { PAYIN_LOCK_WAIT_MAX_MS, payinLockOptions } from "../lock"

const after = <T>(ms: number, value: T, fail = false) =>
  new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(new Error(String(value))) : resolve(value)), ms))

describe("beforeDeadline", () => {
  it("gives the work's value when it settles in time, and throws its failure", async () => {
    expect(await beforeDeadline(after(5, "done"), Date.now() + 1_000)).toBe("done")
    await expect(beforeDeadline(after(5, "broken", true), Date.now() + 1_000)).rejects.toThrow("broken")
  })

  it("gives LATE at the deadline; a failure after it goes to onLateFailure, never unhandled", async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on("unhandledRejection", onUnhandled)
    try {
      const late: unknown[] = []
      const started = Date.now()
      expect(await beforeDeadline(after(500, "too late", true), Date.now() + 20, (e) => late.push(e))).toBe(LATE)
      expect(Date.now() - started).toBeLessThan(450) // not waiting for the work
      await after(600, null)
      expect(late.map(String)).toEqual(["Error: too late"])
      expect(await beforeDeadline(after(30, "slow"), Date.now() - 1)).toBe(LATE) // a deadline already passed
      expect(unhandled).toEqual([])
    } finally {
      process.off("unhandledRejection", onUnhandled)
    }
  })

  it("a booking waits for a held pay-in lock at most half its lifetime, 5 s at most, then is retried", () => {
    expect(payinLockOptions(30).waitMs).toBe(PAYIN_LOCK_WAIT_MAX_MS)
    expect(payinLockOptions(6).waitMs).toBe(3_000)
  })
})
