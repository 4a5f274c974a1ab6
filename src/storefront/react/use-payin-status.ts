"use client"
import { useCallback, useEffect, useRef, useState } from "react"
import { pollPayinStatus, type PayinPoller, type PayinStatusWait } from "../poll"
import type { PayinStatusResponse } from "../types"

export type UsePayinStatusOptions = {
  /**
   * The latest function is always used; polling restarts only when `enabled` turns on again or on remount (key it to
   * switch orders). Pass `wait` on to the status request (`client.status(query, wait)`) for answers as soon as they change.
   */
  fetchStatus: (wait?: PayinStatusWait) => Promise<PayinStatusResponse>
  enabled?: boolean
  initial?: PayinStatusResponse | null
  onUpdate?: (response: PayinStatusResponse) => void
}

export type UsePayinStatusResult = {
  /** The latest answer (kept while later polls fail). */
  data: PayinStatusResponse | null
  error: unknown
  loading: boolean
  refresh: () => void
  /** Shows `response` at once (e.g. the pay-again answer) and polls on from it, dropping any answer still in flight. */
  replace: (response: PayinStatusResponse) => void
}

/** Polls with {@link pollPayinStatus} until final; stops on unmount. */
export function usePayinStatus({ fetchStatus, enabled = true, initial = null, onUpdate }: UsePayinStatusOptions): UsePayinStatusResult {
  const [data, setData] = useState<PayinStatusResponse | null>(initial)
  const [error, setError] = useState<unknown>(null)
  const [loading, setLoading] = useState<boolean>(enabled)
  const latest = useRef({ fetchStatus, onUpdate })
  const poller = useRef<PayinPoller | null>(null)
  // Bumped by replace(): polling starts over (the earlier poller may have stopped on a final state).
  const [round, setRound] = useState(0)
  useEffect(() => {
    latest.current = { fetchStatus, onUpdate }
  })

  useEffect(() => {
    if (!enabled) {
      setLoading(false)
      return
    }
    setLoading(true)
    const current = pollPayinStatus((wait) => (wait ? latest.current.fetchStatus(wait) : latest.current.fetchStatus()), {
      onUpdate: (response) => {
        setData(response)
        setError(null)
        setLoading(false)
        latest.current.onUpdate?.(response)
      },
      onError: (e) => {
        setError(e)
        setLoading(false)
      },
    })
    poller.current = current
    return () => {
      current.stop()
      if (poller.current === current) poller.current = null
    }
  }, [enabled, round])

  const refresh = useCallback(() => poller.current?.refresh(), [])
  const replace = useCallback((response: PayinStatusResponse) => {
    poller.current?.stop()
    setData(response)
    setError(null)
    latest.current.onUpdate?.(response)
    setRound((n) => n + 1)
  }, [])
  return { data, error, loading, refresh, replace }
}
