import type { PayinStatusResponse } from "./types"
import { clockOffset } from "./countdown"

export type PayinPollOptions = {
  onUpdate: (response: PayinStatusResponse) => void
  onError?: (error: unknown) => void
  /** Delay after an answer that changed something, and the first error delay (at least 1 s). Default 2000 ms. */
  initialDelayMs?: number
  /** Longest delay between answers that change nothing. Default 15000 ms. */
  maxDelayMs?: number
  /** Growth of the delay per answer that changes nothing. Default 1.5. */
  factor?: number
  /** Longest delay after repeated errors (errors double the delay). Default 60000 ms. */
  errorMaxDelayMs?: number
  signal?: AbortSignal
  now?: () => number
  /** Pause while the page is hidden and poll at once when it shows again. Default true. */
  pauseWhenHidden?: boolean
}

export type PayinPoller = {
  /** Stops for good; an answer still in flight is dropped. */
  stop(): void
  /** After a final state it fetches once more and resumes if the state is no longer final. */
  refresh(): void
}

/** Poll this long after the window ends: the service needs a moment to close the pay-in. */
const AFTER_EXPIRY_MS = 1000
const MIN_DELAY_MS = 100
const MIN_ERROR_DELAY_MS = 1000

/** Polls until `payin.final` or the answer has no pay-in; never has two requests in flight. */
export function pollPayinStatus(
  fetchStatus: () => Promise<PayinStatusResponse>,
  options: PayinPollOptions
): PayinPoller {
  // Floors keep a zero or negative setting from turning polling into a request loop.
  const initial = Math.max(MIN_DELAY_MS, options.initialDelayMs ?? 2000)
  const max = Math.max(initial, options.maxDelayMs ?? 15000)
  const factor = Math.max(1, options.factor ?? 1.5)
  const errorMax = Math.max(initial, options.errorMaxDelayMs ?? 60000)
  const now = options.now ?? Date.now
  const doc = options.pauseWhenHidden !== false && typeof document !== "undefined" ? document : undefined

  let stopped = false
  /** A final state or no pay-in: nothing is scheduled, but refresh() may still fetch. */
  let finished = false
  let inFlight = false
  let pollAgain = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let delay = initial
  let errorDelay = 0
  let lastKey: string | undefined

  const clear = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  const schedule = (ms: number) => {
    clear()
    if (!stopped && !finished) {
      timer = setTimeout(() => {
        timer = undefined
        void poll()
      }, ms)
    }
  }

  const nextDelay = (response: PayinStatusResponse): number => {
    const payin = response.payin
    // `final` (not the state alone): a paid pay-in whose capture is still running is not final yet,
    // so the last answer carries the order's final payment status
    finished = !payin || payin.final
    if (!payin || finished) return 0
    const clientNow = now()
    const expires = payin.expires_at ? Date.parse(payin.expires_at) : NaN
    const toExpiry = expires - (clientNow + clockOffset(response.server_time, clientNow))
    // The end of the window counts as a change: the outcome follows within seconds.
    const key = [payin.state, response.order?.payment_status, response.order?.status, toExpiry > 0].join("|")
    delay = lastKey === undefined || key !== lastKey ? initial : Math.min(delay * factor, max)
    lastKey = key
    return toExpiry > 0 && toExpiry + AFTER_EXPIRY_MS < delay ? toExpiry + AFTER_EXPIRY_MS : delay
  }

  async function poll(): Promise<void> {
    if (stopped) return
    if (inFlight) {
      pollAgain = true
      return
    }
    if (doc?.hidden) return // the visibilitychange listener polls when the page shows again
    clear()
    inFlight = true
    let response: PayinStatusResponse | undefined
    let error: unknown
    let failed = false
    try {
      response = await fetchStatus()
    } catch (e) {
      failed = true
      error = e
    }
    inFlight = false
    if (stopped) return
    if (failed) {
      errorDelay = errorDelay ? Math.min(errorDelay * 2, errorMax) : Math.max(initial, MIN_ERROR_DELAY_MS)
      schedule(errorDelay)
    } else {
      errorDelay = 0
      schedule(nextDelay(response as PayinStatusResponse))
    }
    if (pollAgain) {
      pollAgain = false
      void poll()
    }
    // Callbacks last: a throwing callback must not break the schedule.
    if (failed) options.onError?.(error)
    else options.onUpdate(response as PayinStatusResponse)
  }

  const onVisibility = () => {
    if (doc && !doc.hidden && !finished && !inFlight) void poll()
  }
  const stop = () => {
    stopped = true
    clear()
    doc?.removeEventListener("visibilitychange", onVisibility)
    options.signal?.removeEventListener("abort", stop)
  }

  if (options.signal?.aborted) {
    stopped = true
  } else {
    options.signal?.addEventListener("abort", stop)
    doc?.addEventListener("visibilitychange", onVisibility)
    void poll()
  }

  return {
    stop,
    refresh: () => void poll(),
  }
}
