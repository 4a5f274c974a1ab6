import type { PayinStatusResponse } from "./types"
import { clockOffset } from "./countdown"

/**
 * What the poller asks the fetcher for while a pay-in waits: pass `wait` and `since` on to the status request
 * (`createPayinStoreClient().status(query, wait)` does) and the server answers as soon as the view changes, or
 * after `wait` seconds. A fetcher that ignores it still works: the poller then polls on its delays. A plain
 * object, so a server action may take it.
 */
export type PayinStatusWait = { wait: number; since: string }

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
  /**
   * Long polling: while the pay-in is not final, ask the server to hold each request up to this many seconds
   * until the answer changes (at most 25). 0 polls on the delays above only. Default 25. Used only when the
   * server holds requests (the plugin's `long_poll` in the answer); else, and after a 400 to such a request
   * (an older plugin), the delays above apply.
   */
  longPollSeconds?: number
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
const MAX_LONG_POLL_SECONDS = 25
/** A held request answered faster than this is "quick"; after a few in a row the delays apply (a proxy or an overloaded server answering at once must not become a request loop). */
const QUICK_ANSWER_MS = 1000
const QUICK_ANSWERS_AT_ONCE = 3

/** Polls until `payin.final` or the answer has no pay-in; never has two requests in flight. */
export function pollPayinStatus(
  fetchStatus: (wait?: PayinStatusWait) => Promise<PayinStatusResponse>,
  options: PayinPollOptions
): PayinPoller {
  // Floors keep a zero or negative setting from turning polling into a request loop.
  const initial = Math.max(MIN_DELAY_MS, options.initialDelayMs ?? 2000)
  const max = Math.max(initial, options.maxDelayMs ?? 15000)
  const factor = Math.max(1, options.factor ?? 1.5)
  const errorMax = Math.max(initial, options.errorMaxDelayMs ?? 60000)
  const now = options.now ?? Date.now
  const doc = options.pauseWhenHidden !== false && typeof document !== "undefined" ? document : undefined
  const longPollSeconds = Math.min(MAX_LONG_POLL_SECONDS, Math.max(0, options.longPollSeconds ?? MAX_LONG_POLL_SECONDS))

  let stopped = false
  /** A final state or no pay-in: nothing is scheduled, but refresh() may still fetch. */
  let finished = false
  let inFlight = false
  let pollAgain = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let delay = initial
  let errorDelay = 0
  let lastKey: string | undefined
  /** Off for good once the server (or the fetcher) did not hold a request. */
  let longPoll = longPollSeconds > 0
  let since: string | undefined
  let quickAnswers = 0
  /** The request in flight: a newer one (refresh) drops its answer. */
  let current: { held: boolean } | undefined

  const clear = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  const schedule = (ms: number) => {
    clear()
    if (ms <= 0 && !stopped && !finished) {
      // the next held request goes out at once (a timer would add its own minimum delay)
      void Promise.resolve().then(() => poll())
    } else if (!stopped && !finished) {
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

  /** `immediate`: fetch the current answer without asking the server to hold it (a refresh, the page shown again). */
  async function poll(immediate = false): Promise<void> {
    if (stopped) return
    if (inFlight) {
      // a held request may not answer for a while: a refresh replaces it (the server ends it at its deadline)
      if (current?.held) {
        current = undefined
        inFlight = false
      } else {
        pollAgain = true
        return
      }
    }
    if (doc?.hidden) return // the visibilitychange listener polls when the page shows again
    clear()
    inFlight = true
    const ask = !immediate && longPoll && since !== undefined && !finished
    const request = { held: ask }
    current = request
    const started = now()
    let response: PayinStatusResponse | undefined
    let error: unknown
    let failed = false
    try {
      response = await (ask ? fetchStatus({ wait: longPollSeconds, since: since as string }) : fetchStatus())
    } catch (e) {
      failed = true
      error = e
    }
    if (current !== request) return // replaced by a refresh, or stopped
    current = undefined
    inFlight = false
    if (stopped) return
    if (failed && ask && (error as { status?: unknown } | null)?.status === 400) {
      // a plugin without long polling refuses the unknown parameters: poll on without them, at once
      longPoll = false
      void poll()
      return
    }
    if (failed) {
      errorDelay = errorDelay ? Math.min(errorDelay * 2, errorMax) : Math.max(initial, MIN_ERROR_DELAY_MS)
      schedule(errorDelay)
    } else {
      errorDelay = 0
      const answer = response as PayinStatusResponse
      const delayed = nextDelay(answer)
      if (ask && !answer.long_poll) longPoll = false
      since = typeof answer.view_tag === "string" && answer.view_tag ? answer.view_tag : undefined
      if (longPoll && since !== undefined && !finished) {
        quickAnswers = !ask || now() - started >= QUICK_ANSWER_MS ? 0 : quickAnswers + 1
        schedule(quickAnswers < QUICK_ANSWERS_AT_ONCE ? 0 : delayed)
      } else {
        schedule(delayed)
      }
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
    if (doc && !doc.hidden && !finished && !inFlight) void poll(true)
  }
  const stop = () => {
    stopped = true
    clear()
    current = undefined
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
    refresh: () => void poll(true),
  }
}
