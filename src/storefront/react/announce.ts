"use client"
// What a screen reader hears of the countdown. The visible time ticks every second; a live region
// saying it every second would drown out everything else, so the countdown is announced only when
// the time left crosses a coarse step: every 30 minutes above an hour, every 5 minutes above
// 10 minutes, every minute below that, and at 30 and 10 seconds in the last minute.

/** A step of the countdown: `mark` names it (announce when it changes), `seconds` is what to say. */
export type CountdownAnnouncement = { mark: number; seconds: number }

const LAST_MINUTE_MARKS = [10, 30, 60] as const

/**
 * The step that `totalSeconds` left falls in: the smallest mark at or above it. A new mark means a
 * boundary was just crossed; at that moment the time left is the mark itself, so `seconds` is
 * whole minutes (rounded down, should a tick have been skipped) or, in the last minute, exact.
 * Null once the window is over (the status line says so).
 */
export function countdownAnnouncement(totalSeconds: number): CountdownAnnouncement | null {
  const t = Number.isFinite(totalSeconds) ? Math.max(0, Math.ceil(totalSeconds)) : 0
  if (t === 0) return null
  if (t <= 60) return { mark: LAST_MINUTE_MARKS.find((m) => t <= m)!, seconds: t }
  const step = t > 3600 ? 1800 : t > 600 ? 300 : 60
  return { mark: Math.ceil(t / step) * step, seconds: Math.floor(t / 60) * 60 }
}

/**
 * Folds the countdown's values into announcements: returns the text to put in the live region
 * when `totalSeconds` enters a new step, else null (the region keeps what it said). The first
 * value is never announced: a page that just opened shows the time, it did not change.
 */
export function countdownAnnouncer(words: (seconds: number) => string): (totalSeconds: number) => string | null {
  let last: number | null | undefined
  return (totalSeconds) => {
    const next = countdownAnnouncement(totalSeconds)
    const mark = next?.mark ?? null
    const first = last === undefined
    const changed = mark !== last
    last = mark
    return !first && changed && next ? words(next.seconds) : null
  }
}
