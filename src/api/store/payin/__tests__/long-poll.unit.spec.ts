import type { PayinStatusResponse } from "../../../../storefront/types"
import { PayinWatch } from "../status/wait"
import { viewTag } from "../status-view"
import { statusQuerySchema } from "../validators"

const body = (over: { state?: string; seconds?: number; time?: string; payment?: string } = {}): PayinStatusResponse =>
  ({
    cart_id: "cart_1",
    order: { id: "order_1", display_id: 1, status: "pending", payment_status: over.payment ?? "awaiting" },
    payin: { provider_id: "pp_payin_default", payin_id: "tx_1", state: over.state ?? "awaiting_payment", final: false, seconds_left: over.seconds ?? 600 },
    pay_again: null,
    server_time: over.time ?? "2025-03-01T12:00:00.000Z",
  }) as unknown as PayinStatusResponse

describe("viewTag", () => {
  it("ignores the clock: server_time and the seconds left while the window is open", () => {
    expect(viewTag(body({ seconds: 600 }))).toBe(viewTag(body({ seconds: 3, time: "2025-03-01T12:09:57.000Z" })))
    expect(viewTag(body())).toMatch(/^[A-Za-z0-9_-]{22}$/)
  })

  it("changes with the state, the order's payment status and the end of the window", () => {
    const tags = [body(), body({ state: "paid" }), body({ state: "paid", payment: "captured" }), body({ seconds: 0 })].map(viewTag)
    expect(new Set(tags).size).toBe(4)
  })
})

describe("statusQuerySchema: wait and since", () => {
  const fields = (input: unknown) => {
    const r = statusQuerySchema.safeParse(input)
    return r.success ? r.data : r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }))
  }

  it("takes wait (seconds, up to 25) with since, as numbers", () => {
    expect(fields({ order_id: "o", wait: "25", since: "abc_-1" })).toEqual({ order_id: "o", wait: 25, since: "abc_-1" })
    expect(fields({ cart_id: "c", wait: "0.5", since: "t" })).toEqual({ cart_id: "c", wait: 0.5, since: "t" })
  })

  it("refuses each without the other, a wait above 25 or not a number, and a since that is no view_tag", () => {
    expect(fields({ order_id: "o", wait: "10" })).toEqual([{ path: "since", message: "since is required with wait" }])
    expect(fields({ order_id: "o", since: "t" })).toEqual([{ path: "wait", message: "wait is required with since" }])
    expect(fields({ order_id: "o", wait: "26", since: "t" })).toEqual([{ path: "wait", message: "wait must be at most 25 seconds" }])
    expect(fields({ order_id: "o", wait: "-1", since: "t" })).toEqual([
      { path: "wait", message: "wait must be a number of seconds from 0 to 25, such as 25" },
    ])
    expect(fields({ order_id: "o", wait: ["1", "2"], since: "t" })).toEqual([
      { path: "wait", message: "wait must be a single number of seconds (0–25)" },
    ])
    expect(fields({ order_id: "o", wait: "5", since: "a/b" })).toEqual([{ path: "since", message: "since must be the view_tag of an earlier answer" }])
  })
})

describe("PayinWatch", () => {
  beforeEach(() => jest.useFakeTimers())
  afterEach(() => jest.useRealTimers())

  it("re-reads every watched pay-in in one read per tick and wakes only the waiters whose row changed", async () => {
    const versions = new Map([
      ["a", 1],
      ["b", 1],
    ])
    const reads: string[][] = []
    const reader = async (ids: string[]) => (reads.push(ids), new Map(versions))
    const watch = new PayinWatch(200)
    const woken: string[] = []
    for (const [name, id] of [["a1", "a"], ["a2", "a"], ["b1", "b"]] as const) {
      void watch.watch(id, 1, reader)!.woken.then(() => woken.push(name))
    }
    await jest.advanceTimersByTimeAsync(1_000)
    expect(woken).toEqual([])
    expect(reads).toHaveLength(5)
    expect(reads[0]).toEqual(["a", "b"])
    versions.set("a", 2)
    await jest.advanceTimersByTimeAsync(200)
    expect(woken).toEqual(["a1", "a2"])
    expect(watch.watched).toBe(1)
    versions.delete("b") // a row gone is a change too
    await jest.advanceTimersByTimeAsync(200)
    expect(woken).toEqual(["a1", "a2", "b1"])
    expect(watch.watched).toBe(0)
    await jest.advanceTimersByTimeAsync(1_000)
    expect(reads).toHaveLength(7) // nothing watched: no reads
  })

  it("stops reading for a cancelled waiter, refuses beyond its cap, and keeps going after a failed read", async () => {
    let fail = true
    let reads = 0
    const reader = async (ids: string[]) => {
      reads++
      if (fail) throw new Error("db down")
      return new Map(ids.map((id) => [id, 2]))
    }
    const watch = new PayinWatch(200, 1)
    const first = watch.watch("a", 1, reader)!
    expect(watch.watch("b", 1, reader)).toBeNull()
    let woke = false
    void first.woken.then(() => (woke = true))
    await jest.advanceTimersByTimeAsync(400)
    expect(woke).toBe(false)
    fail = false
    await jest.advanceTimersByTimeAsync(200)
    expect(woke).toBe(true)
    const second = watch.watch("b", 1, reader)!
    second.cancel()
    const before = reads
    await jest.advanceTimersByTimeAsync(1_000)
    expect(reads).toBe(before)
  })
})
