import { pollPayinStatus, type PayinStatusWait } from "../poll"
import { createPayinStoreClient, PayinStoreApiError } from "../store-client"
import type { PayinStatusResponse, ShopperState } from "../types"

const T0 = Date.parse("2025-03-01T12:00:00.000Z")
const HOUR = 3_600_000

function answer(state: ShopperState, over: { tag?: string; held?: boolean | number; final?: boolean; paymentStatus?: string } = {}): PayinStatusResponse {
  return {
    cart_id: "cart_1",
    order: { id: "order_1", display_id: 1, status: "pending", payment_status: over.paymentStatus ?? "awaiting" },
    payin: {
      provider_id: "pp_payin_default",
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
      expires_at: new Date(T0 + HOUR).toISOString(),
      seconds_left: 3600,
      paid_at: null,
    },
    server_time: new Date(Date.now()).toISOString(),
    view_tag: over.tag ?? state,
    ...(over.held === undefined || over.held === false ? {} : { long_poll: { waited_ms: typeof over.held === "number" ? over.held : 0, changed: true } }),
  }
}

type Call = { at: number; wait?: PayinStatusWait }

/** A fetcher whose n-th answer is `reply(n, wait)`, resolved after `holdMs` of fake time (what a held request takes). */
function server(reply: (n: number, wait?: PayinStatusWait) => { body?: PayinStatusResponse; error?: unknown; holdMs?: number }) {
  const calls: Call[] = []
  const fetchStatus = jest.fn((wait?: PayinStatusWait) => {
    calls.push({ at: Date.now() - T0, wait })
    const r = reply(calls.length - 1, wait)
    return new Promise<PayinStatusResponse>((resolve, reject) => {
      const done = () => (r.error ? reject(r.error) : resolve(r.body as PayinStatusResponse))
      if (r.holdMs) setTimeout(done, r.holdMs)
      else done()
    })
  })
  return { calls, fetchStatus }
}

beforeEach(() => {
  jest.useFakeTimers()
  jest.setSystemTime(T0)
})
afterEach(() => jest.useRealTimers())

describe("pollPayinStatus: long polling", () => {
  it("asks the server to hold each request with the last view_tag while the pay-in waits, and stops once final", async () => {
    const { calls, fetchStatus } = server((n) =>
      n === 0
        ? { body: answer("awaiting_payment") } // the first request asks for nothing
        : n === 1
          ? { body: answer("awaiting_payment", { held: 25_000 }), holdMs: 25_000 } // nothing changed in 25 s
          : n === 2
            ? { body: answer("paid", { final: false, held: 3_000, tag: "paid-running" }), holdMs: 3_000 }
            : { body: answer("paid", { paymentStatus: "captured", held: 400, tag: "paid-captured" }), holdMs: 400 }
    )
    const onUpdate = jest.fn()
    pollPayinStatus(fetchStatus, { onUpdate })
    await jest.advanceTimersByTimeAsync(120_000)
    expect(calls.map((c) => c.at)).toEqual([0, 0, 25_000, 28_000])
    expect(calls[0].wait).toBeUndefined()
    expect(calls.slice(1).map((c) => [c.wait?.wait, c.wait?.since])).toEqual([
      [25, "awaiting_payment"],
      [25, "awaiting_payment"],
      [25, "paid-running"],
    ])
    expect(onUpdate.mock.calls.map(([r]) => [r.payin.state, r.order.payment_status])).toEqual([
      ["awaiting_payment", "awaiting"],
      ["awaiting_payment", "awaiting"],
      ["paid", "awaiting"],
      ["paid", "captured"],
    ])
    expect(jest.getTimerCount()).toBe(0)
  })

  it("polls on its delays when the answer to a held request says nothing of long_poll (a fetcher that drops `wait`, an older server)", async () => {
    const { calls, fetchStatus } = server(() => ({ body: answer("awaiting_payment") }))
    const poller = pollPayinStatus(fetchStatus, { onUpdate: () => {} })
    await jest.advanceTimersByTimeAsync(10_000)
    poller.stop()
    // 0: plain; 0: one held request, answered at once without long_poll (the second same answer); then 3 s, 4.5 s as without long polling
    expect(calls.map((c) => c.at)).toEqual([0, 0, 3_000, 7_500])
    expect(calls.map((c) => c.wait !== undefined)).toEqual([false, true, false, false])
  })

  it("after a 400 to a held request (a plugin refusing the unknown parameters) asks again at once without them, and reports nothing", async () => {
    const refused = new PayinStoreApiError(400, { type: "invalid_data", message: "wait: Unrecognized key" })
    const { calls, fetchStatus } = server((_n, wait) => (wait ? { error: refused } : { body: answer("awaiting_payment") }))
    const onError = jest.fn()
    const poller = pollPayinStatus(fetchStatus, { onUpdate: () => {}, onError })
    await jest.advanceTimersByTimeAsync(6_000)
    poller.stop()
    expect(calls.map((c) => [c.at, c.wait !== undefined])).toEqual([
      [0, false],
      [0, true],
      [0, false],
      [3_000, false],
    ])
    expect(onError).not.toHaveBeenCalled()
  })

  it("falls back to its delays after three held requests in a row answered at once (no request loop)", async () => {
    const { calls, fetchStatus } = server((n) => ({ body: answer("awaiting_payment", { held: n > 0 ? 0 : false }) }))
    const poller = pollPayinStatus(fetchStatus, { onUpdate: () => {} })
    await jest.advanceTimersByTimeAsync(10_000)
    poller.stop()
    // plain, then three quick held answers at once, then the plain backoff's delays for an unchanged answer (still asking to be held)
    expect(calls.map((c) => c.at)).toEqual([0, 0, 0, 0, 6_750])
    expect(calls.slice(1).every((c) => c.wait?.since === "awaiting_payment")).toBe(true)
  })

  it("refresh() drops the held request's answer and fetches the current answer at once", async () => {
    const { calls, fetchStatus } = server((n, wait) =>
      n === 1
        ? { body: answer("paid", { tag: "stale", held: 20_000 }), holdMs: 20_000 }
        : wait
          ? { body: answer("awaiting_payment", { held: 25_000 }), holdMs: 25_000 }
          : { body: answer("awaiting_payment") }
    )
    const onUpdate = jest.fn()
    const poller = pollPayinStatus(fetchStatus, { onUpdate })
    await jest.advanceTimersByTimeAsync(5_000)
    expect(calls[1].wait).toEqual({ wait: 25, since: "awaiting_payment" })
    poller.refresh()
    expect(calls[2]).toMatchObject({ at: 5_000, wait: undefined })
    await jest.advanceTimersByTimeAsync(20_000)
    // the replaced request's late answer ("paid") never reaches onUpdate
    expect(onUpdate.mock.calls.map(([r]) => r.payin.state)).toEqual(["awaiting_payment", "awaiting_payment"])
    poller.stop()
  })

  it("after stop() the held request's answer is dropped and nothing more is asked", async () => {
    const { calls, fetchStatus } = server((n) => ({ body: answer("awaiting_payment", { held: n > 0 ? 25_000 : false }), holdMs: n > 0 ? 25_000 : 0 }))
    const onUpdate = jest.fn()
    const poller = pollPayinStatus(fetchStatus, { onUpdate })
    await jest.advanceTimersByTimeAsync(1_000)
    poller.stop()
    await jest.advanceTimersByTimeAsync(60_000)
    expect(onUpdate).toHaveBeenCalledTimes(1)
    expect(calls).toHaveLength(2)
  })

  it("longPollSeconds: 0 never asks to be held; other values are capped at 25", async () => {
    const off = server(() => ({ body: answer("awaiting_payment") }))
    const a = pollPayinStatus(off.fetchStatus, { onUpdate: () => {}, longPollSeconds: 0 })
    const short = server((n) => ({ body: answer("awaiting_payment", { held: n > 0 ? 0 : false }) }))
    const b = pollPayinStatus(short.fetchStatus, { onUpdate: () => {}, longPollSeconds: 90 })
    await jest.advanceTimersByTimeAsync(3_000)
    a.stop()
    b.stop()
    expect(off.calls.every((c) => c.wait === undefined)).toBe(true)
    expect(short.calls[1].wait?.wait).toBe(25)
  })
})

describe("createPayinStoreClient().status with wait", () => {
  it("sends wait and since, and hands the signal to fetch", async () => {
    const fetch = jest.fn(async () => ({ ok: true, status: 200, json: async () => answer("awaiting_payment") }))
    const client = createPayinStoreClient({ baseUrl: "https://api.shop.example", publishableKey: "pk_1", fetch: fetch as never })
    const controller = new AbortController()
    await client.status({ order_id: "order_1" }, { wait: 25, since: "tag_1" }, { signal: controller.signal })
    expect(fetch).toHaveBeenCalledWith("https://api.shop.example/store/payin/status?order_id=order_1&wait=25&since=tag_1", {
      method: "GET",
      headers: { accept: "application/json", "x-publishable-api-key": "pk_1" },
      signal: controller.signal,
    })
  })

  it("passes the query and the signal to the js-sdk's fetch", async () => {
    const sdkFetch = jest.fn(async () => answer("awaiting_payment"))
    const client = createPayinStoreClient({ sdk: { client: { fetch: sdkFetch as never } } })
    const controller = new AbortController()
    await client.status({ cart_id: "cart_1" }, { wait: 2.5, since: "tag_2" }, { signal: controller.signal })
    expect(sdkFetch).toHaveBeenCalledWith("/store/payin/status", { query: { cart_id: "cart_1", wait: "2.5", since: "tag_2" }, signal: controller.signal })
  })
})
