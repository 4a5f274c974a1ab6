/**
 * A signal whose sends may be merged: `fire()` sends at once when nothing is being sent; fired
 * again meanwhile, it sends once more after the send in flight settles (never more than one
 * waiting). A send unsettled after `staleMs` no longer holds the next one back.
 */
export function coalesced(send: () => Promise<unknown>, staleMs: number, now: () => number = Date.now): () => void {
  let current: { again: boolean; since: number } | null = null
  const fire = (): void => {
    if (current && now() - current.since < staleMs) {
      current.again = true
      return
    }
    const state = { again: false, since: now() }
    current = state
    void Promise.resolve()
      .then(send)
      .catch(() => undefined)
      .finally(() => {
        if (current !== state) return
        current = null
        if (state.again) fire()
      })
  }
  return fire
}
