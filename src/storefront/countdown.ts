/**
 * The payment window countdown. Times are read against the server's clock (through a clock
 * offset) because a shopper's phone may be minutes off, and a countdown that says "10 minutes"
 * when the service has already closed the window makes people pay into a dead requisite.
 */

/** Time left until the end of the payment window, in whole seconds (rounded up). */
export type TimeLeft = {
  totalSeconds: number
  hours: number
  minutes: number
  seconds: number
  /** True once the window is over; false while it runs or when its end is unknown. */
  expired: boolean
}

function toMs(value: string | number | Date | null | undefined): number {
  if (value === null || value === undefined) return NaN
  if (typeof value === "number") return value
  if (value instanceof Date) return value.getTime()
  return Date.parse(value)
}

/**
 * Time left until `expiresAt` at the client time `nowMs`, corrected by `clockOffsetMs`.
 * Rounded up, so the display reaches 00:00 exactly when the window ends. An unknown or invalid
 * end gives zero time and `expired: false`.
 *
 * @param expiresAt - end of the payment window (ISO 8601, epoch ms or Date)
 * @param nowMs - the client's `Date.now()`
 * @param clockOffsetMs - server clock minus client clock (see {@link clockOffset})
 */
export function timeLeft(expiresAt: string | number | Date | null | undefined, nowMs: number, clockOffsetMs = 0): TimeLeft {
  const end = toMs(expiresAt)
  if (!Number.isFinite(end) || !Number.isFinite(nowMs)) {
    return { totalSeconds: 0, hours: 0, minutes: 0, seconds: 0, expired: false }
  }
  const totalSeconds = Math.max(0, Math.ceil((end - (nowMs + (clockOffsetMs || 0))) / 1000))
  return {
    totalSeconds,
    hours: Math.floor(totalSeconds / 3600),
    minutes: Math.floor((totalSeconds % 3600) / 60),
    seconds: totalSeconds % 60,
    expired: totalSeconds === 0,
  }
}

/**
 * Server clock minus client clock, in ms, from the `server_time` of a store API answer and the
 * client's `Date.now()` when it arrived. 0 when `serverTimeIso` is not a valid date.
 */
export function clockOffset(serverTimeIso: string | null | undefined, clientNowMs: number): number {
  const server = typeof serverTimeIso === "string" ? Date.parse(serverTimeIso) : NaN
  return Number.isFinite(server) && Number.isFinite(clientNowMs) ? server - clientNowMs : 0
}

const pad = (n: number) => String(n).padStart(2, "0")

/** `"mm:ss"` below an hour, `"h:mm:ss"` from an hour on; negative or invalid input is `"00:00"`. */
export function formatDuration(seconds: number): string {
  const total = Number.isFinite(seconds) ? Math.max(0, Math.floor(seconds)) : 0
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`
}

export type CountdownOptions = {
  /** Server clock minus client clock (see {@link clockOffset}). */
  clockOffsetMs?: number
  /** Called once when the window is over (at once if it already is). */
  onExpire?: () => void
}

/**
 * Calls `onTick` now and then each time the displayed second changes, until the window ends.
 * Timers are aligned to the countdown's own second boundaries, so the display never skips or
 * repeats a second however late the first tick came.
 *
 * @returns a function that stops the countdown
 */
export function startCountdown(
  expiresAt: string | number | Date | null | undefined,
  onTick: (left: TimeLeft) => void,
  options: CountdownOptions = {}
): () => void {
  const end = toMs(expiresAt)
  const offset = options.clockOffsetMs || 0
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  let shown = -1

  const tick = () => {
    timer = undefined
    if (stopped) return
    const now = Date.now()
    const left = timeLeft(end, now, offset)
    if (left.totalSeconds !== shown) {
      shown = left.totalSeconds
      onTick(left)
    }
    if (stopped || !Number.isFinite(end)) return
    if (left.expired) {
      stopped = true
      options.onExpire?.()
      return
    }
    const remaining = end - (now + offset)
    timer = setTimeout(tick, remaining % 1000 || 1000)
  }
  tick()
  return () => {
    stopped = true
    if (timer !== undefined) clearTimeout(timer)
  }
}
