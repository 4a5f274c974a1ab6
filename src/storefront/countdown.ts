// Read against the server's clock: a phone minutes off would count down a window the service already closed.

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

/** Rounded up, so the display reaches 00:00 exactly when the window ends; an unknown end gives 0 and `expired: false`. */
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

/** Server clock minus client clock, in ms; 0 when `serverTimeIso` is not a valid date. */
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
  clockOffsetMs?: number
  /** Called once when the window is over (at once if it already is). */
  onExpire?: () => void
}

/** Ticks align to the countdown's own second boundaries, so the display never skips or repeats a second; returns a stop function. */
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
