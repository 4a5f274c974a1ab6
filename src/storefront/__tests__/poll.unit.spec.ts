import { pollPayinStatus } from "../poll"
import type { ShopperState, PayinStatusResponse, PayinStatusView } from "../types"

const T0 = Date.parse("2025-03-01T12:00:00.000Z")
const HOUR = 3_600_000

function response(state: ShopperState | null, over: { expiresAt?: number; paymentStatus?: string; final?: boolean; serverAheadMs?: number } = {}): PayinStatusResponse {
  const payin: PayinStatusView | null = state
    ? {
        provider_id: "pp_payin_payin",
        payin_id: "tx_1",
        state,
        service_status: "active",
        final: over.final ?? ["paid", "expired", "canceled", "failed"].includes(state),
        amount: "1790.00",
        currency: "RUB",
        paid_amount: null,
        method: "card",
        bank: "sberbank",
        requisite: null,
        payment_page_url: null,
        created_at: new Date(T0).toISOString(),
        expires_at: new Date(over.expiresAt ?? T0 + HOUR).toISOString(),
        seconds_left: 0,
        paid_at: null,
      }
    : null
  return {
    cart_id: "cart_1",
    order: { id: "order_1", display_id: 1, status: "pending", payment_status: over.paymentStatus ?? "awaiting" },
    payin,
    server_time: new Date(Date.now() + (over.serverAheadMs ?? 0)).toISOString(),
  }
}

/** A fetchStatus that records when it was called (ms since T0) and answers from `answer`. */
function recorder(answer: (call: number) => PayinStatusResponse | Error) {
  const times: number[] = []
  const fetchStatus = jest.fn(async () => {
    times.push(Date.now() - T0)
    const a = answer(times.length - 1)
    if (a instanceof Error) throw a
    return a
  })
  return { times, fetchStatus }
}

beforeEach(() => {
  jest.useFakeTimers()
  jest.setSystemTime(T0)
})
afterEach(() => jest.useRealTimers())

describe("pollPayinStatus", () => {
  it("polls at once and backs off by the factor up to the maximum while nothing changes", async () => {
    const { times, fetchStatus } = recorder(() => response("awaiting_payment"))
    const onUpdate = jest.fn()
    const poller = pollPayinStatus(fetchStatus, { onUpdate })
    expect(fetchStatus).toHaveBeenCalledTimes(1)
    await jest.advanceTimersByTimeAsync(60_000)
    poller.stop()
    expect(times).toEqual([0, 2_000, 5_000, 9_500, 16_250, 26_375, 41_375, 56_375])
    expect(onUpdate).toHaveBeenCalledTimes(times.length)
  })

  it("goes back to the initial delay when the state or the order's payment status changes", async () => {
    const { times, fetchStatus } = recorder((i) =>
      i < 3 ? response("awaiting_payment") : i < 5 ? response("in_review") : response("in_review", { paymentStatus: "captured" })
    )
    const poller = pollPayinStatus(fetchStatus, { onUpdate: () => {} })
    await jest.advanceTimersByTimeAsync(20_000)
    poller.stop()
    // 0, +2000, +3000 | change at #3 (9500) → +2000 | #4 unchanged → +3000 | change at #5 → +2000
    expect(times.slice(0, 7)).toEqual([0, 2_000, 5_000, 9_500, 11_500, 14_500, 16_500])
  })

  it("backs off errors separately, up to errorMaxDelayMs, reports them and keeps polling", async () => {
    const failures = [new Error("a"), new Error("b"), new Error("c"), new Error("d"), new Error("e")]
    const { times, fetchStatus } = recorder((i) => failures[i] ?? response("awaiting_payment"))
    const onError = jest.fn()
    const onUpdate = jest.fn()
    const poller = pollPayinStatus(fetchStatus, { onUpdate, onError, errorMaxDelayMs: 10_000 })
    await jest.advanceTimersByTimeAsync(40_000)
    poller.stop()
    // errors: +2000, +4000, +8000, +10000 (capped), +10000; then answers with the normal backoff
    expect(times.slice(0, 7)).toEqual([0, 2_000, 6_000, 14_000, 24_000, 34_000, 36_000])
    expect(onError.mock.calls.map(([e]) => (e as Error).message)).toEqual(["a", "b", "c", "d", "e"])
    expect(onUpdate).toHaveBeenCalled()
  })

  it("stops on a final state", async () => {
    const { times, fetchStatus } = recorder((i) => (i < 2 ? response("awaiting_payment") : response("paid")))
    const onUpdate = jest.fn()
    pollPayinStatus(fetchStatus, { onUpdate })
    await jest.advanceTimersByTimeAsync(10 * 60_000)
    expect(times).toEqual([0, 2_000, 5_000])
    expect(onUpdate).toHaveBeenLastCalledWith(expect.objectContaining({ payin: expect.objectContaining({ state: "paid" }) }))
    expect(jest.getTimerCount()).toBe(0)
  })

  it("keeps polling a paid pay-in that is not final yet (its capture is running), stops once it is", async () => {
    const { times, fetchStatus } = recorder((i) =>
      i < 2 ? response("paid", { final: false, paymentStatus: "authorized" }) : response("paid", { paymentStatus: "captured" })
    )
    const onUpdate = jest.fn()
    pollPayinStatus(fetchStatus, { onUpdate })
    await jest.advanceTimersByTimeAsync(10 * 60_000)
    expect(times).toHaveLength(3)
    expect(onUpdate).toHaveBeenLastCalledWith(expect.objectContaining({ order: expect.objectContaining({ payment_status: "captured" }) }))
    expect(jest.getTimerCount()).toBe(0)
  })

  it("stops when the view says final, and when there is no pay-in", async () => {
    const a = recorder(() => response("awaiting_payment", { final: true }))
    pollPayinStatus(a.fetchStatus, { onUpdate: () => {} })
    const b = recorder(() => response(null))
    pollPayinStatus(b.fetchStatus, { onUpdate: () => {} })
    await jest.advanceTimersByTimeAsync(60_000)
    expect(a.times).toEqual([0])
    expect(b.times).toEqual([0])
  })

  it("polls about a second after the window ends, then starts the backoff over", async () => {
    const { times, fetchStatus } = recorder(() => response("awaiting_payment", { expiresAt: T0 + 5_500 }))
    const poller = pollPayinStatus(fetchStatus, { onUpdate: () => {} })
    await jest.advanceTimersByTimeAsync(9_000)
    poller.stop()
    // 0 → 2000 → 5000 (backoff would say 9500; the window ends at 5500) → 6500 → reset: 8500
    expect(times).toEqual([0, 2_000, 5_000, 6_500, 8_500])
  })

  it("reads the window's end on the server's clock", async () => {
    // The server is a minute ahead; the window ends 5.5 s from now by its clock.
    const { times, fetchStatus } = recorder(() => response("awaiting_payment", { expiresAt: T0 + 60_000 + 5_500, serverAheadMs: 60_000 }))
    const poller = pollPayinStatus(fetchStatus, { onUpdate: () => {} })
    await jest.advanceTimersByTimeAsync(7_000)
    poller.stop()
    expect(times).toEqual([0, 2_000, 5_000, 6_500])
  })

  it("never has two requests in flight; refresh during one polls once right after", async () => {
    let inFlight = 0
    let maxInFlight = 0
    const resolvers: (() => void)[] = []
    const fetchStatus = jest.fn(
      () =>
        new Promise<PayinStatusResponse>((resolve) => {
          inFlight++
          maxInFlight = Math.max(maxInFlight, inFlight)
          resolvers.push(() => {
            inFlight--
            resolve(response("awaiting_payment"))
          })
        })
    )
    const poller = pollPayinStatus(fetchStatus, { onUpdate: () => {} })
    poller.refresh()
    poller.refresh()
    await jest.advanceTimersByTimeAsync(30_000)
    expect(fetchStatus).toHaveBeenCalledTimes(1)
    resolvers[0]()
    await jest.advanceTimersByTimeAsync(0)
    expect(fetchStatus).toHaveBeenCalledTimes(2)
    resolvers[1]()
    // the second answer changed nothing: the delay has grown to 3000
    await jest.advanceTimersByTimeAsync(2_999)
    expect(fetchStatus).toHaveBeenCalledTimes(2)
    await jest.advanceTimersByTimeAsync(1)
    expect(fetchStatus).toHaveBeenCalledTimes(3)
    expect(maxInFlight).toBe(1)
    poller.stop()
  })

  it("refresh polls now and restarts the schedule", async () => {
    const { times, fetchStatus } = recorder(() => response("awaiting_payment"))
    const poller = pollPayinStatus(fetchStatus, { onUpdate: () => {} })
    await jest.advanceTimersByTimeAsync(700)
    poller.refresh()
    await jest.advanceTimersByTimeAsync(3_100)
    poller.stop()
    // refresh at 700; the timer set at 0 for 2000 is replaced: next is 700 + 3000
    expect(times).toEqual([0, 700, 3_700])
  })

  it("drops an answer that arrives after stop() and schedules nothing", async () => {
    let resolve!: (r: PayinStatusResponse) => void
    const fetchStatus = jest.fn(() => new Promise<PayinStatusResponse>((r) => (resolve = r)))
    const onUpdate = jest.fn()
    const poller = pollPayinStatus(fetchStatus, { onUpdate })
    poller.stop()
    resolve(response("awaiting_payment"))
    await jest.advanceTimersByTimeAsync(60_000)
    poller.refresh()
    expect(onUpdate).not.toHaveBeenCalled()
    expect(fetchStatus).toHaveBeenCalledTimes(1)
  })

  it("stops on abort, and never starts with an aborted signal", async () => {
    const a = recorder(() => response("awaiting_payment"))
    const controller = new AbortController()
    pollPayinStatus(a.fetchStatus, { onUpdate: () => {}, signal: controller.signal })
    await jest.advanceTimersByTimeAsync(2_500)
    controller.abort()
    await jest.advanceTimersByTimeAsync(60_000)
    expect(a.times).toEqual([0, 2_000])

    const b = recorder(() => response("awaiting_payment"))
    pollPayinStatus(b.fetchStatus, { onUpdate: () => {}, signal: AbortSignal.abort() })
    await jest.advanceTimersByTimeAsync(60_000)
    expect(b.times).toEqual([])
  })

  it("after a final state, refresh fetches once more and resumes only if no longer final", async () => {
    const states: ShopperState[] = ["expired", "expired", "awaiting_payment"]
    const { times, fetchStatus } = recorder((i) => response(states[Math.min(i, 2)]))
    const poller = pollPayinStatus(fetchStatus, { onUpdate: () => {} })
    await jest.advanceTimersByTimeAsync(10_000)
    poller.refresh() // still expired: stays stopped
    await jest.advanceTimersByTimeAsync(10_000)
    poller.refresh() // awaiting again: polling resumes
    await jest.advanceTimersByTimeAsync(2_000)
    poller.stop()
    expect(times).toEqual([0, 10_000, 20_000, 22_000])
  })

  describe("page visibility", () => {
    type Listener = () => void
    let listeners: Listener[]
    let fakeDocument: { hidden: boolean; addEventListener: jest.Mock; removeEventListener: jest.Mock }
    beforeEach(() => {
      listeners = []
      fakeDocument = {
        hidden: false,
        addEventListener: jest.fn((_: string, l: Listener) => listeners.push(l)),
        removeEventListener: jest.fn((_: string, l: Listener) => (listeners = listeners.filter((x) => x !== l))),
      }
      Object.defineProperty(globalThis, "document", { value: fakeDocument, configurable: true })
    })
    afterEach(() => {
      delete (globalThis as { document?: unknown }).document
    })

    it("pauses while the page is hidden and polls at once when it shows again", async () => {
      const { times, fetchStatus } = recorder(() => response("awaiting_payment"))
      const poller = pollPayinStatus(fetchStatus, { onUpdate: () => {} })
      await jest.advanceTimersByTimeAsync(1_000)
      fakeDocument.hidden = true
      await jest.advanceTimersByTimeAsync(60_000)
      expect(times).toEqual([0])
      fakeDocument.hidden = false
      listeners.forEach((l) => l())
      await jest.advanceTimersByTimeAsync(0)
      expect(times).toEqual([0, 61_000])
      poller.stop()
      expect(listeners).toHaveLength(0)
    })

    it("keeps polling in the background with pauseWhenHidden: false", async () => {
      fakeDocument.hidden = true
      const { times, fetchStatus } = recorder(() => response("awaiting_payment"))
      const poller = pollPayinStatus(fetchStatus, { onUpdate: () => {}, pauseWhenHidden: false })
      await jest.advanceTimersByTimeAsync(5_000)
      poller.stop()
      expect(times).toEqual([0, 2_000, 5_000])
      expect(fakeDocument.addEventListener).not.toHaveBeenCalled()
    })
  })
})
