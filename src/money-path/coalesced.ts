/**
 * A signal whose sends may be merged: `fire()` sends at once when nothing is being sent; fired
 * again meanwhile, it sends once more after the send in flight settles (never more than one
 * waiting), and not before `gapMs` after the previous send started. A send unsettled after
 * `staleMs` no longer holds the next one back.
 */
export function coalesced(send: () => Promise<unknown>, staleMs: number, now: () => number = Date.now, gapMs = 0): () => void {
  let current: { again: boolean; since: number } | null = null
  const launch = (): void => {
    const state = { again: false, since: now() }
    current = state
    void Promise.resolve()
      .then(send)
      .catch(() => undefined)
      .finally(() => {
        if (current !== state) return
        if (!state.again) {
          current = null
          return
        }
        const wait = state.since + gapMs - now()
        if (wait <= 0) return launch()
        // the fires meanwhile stay merged into this one while it waits
        setTimeout(() => current === state && launch(), wait).unref()
      })
  }
  return (): void => {
    if (current && now() - current.since < staleMs) {
      current.again = true
      return
    }
    launch()
  }
}
