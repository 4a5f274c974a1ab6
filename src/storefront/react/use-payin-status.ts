"use client"
import { useCallback, useEffect, useRef, useState } from "react"
import { pollPayinStatus, type PayinPoller } from "../poll"
import type { PayinStatusResponse } from "../types"

export type UsePayinStatusOptions = {
  /**
   * Fetches the status, e.g. `() => client.status({ order_id })`. The latest function is always
   * used, so an inline arrow is fine; polling starts over only when `enabled` turns on again or
   * the component remounts (give it a React `key` to switch orders).
   */
  fetchStatus: () => Promise<PayinStatusResponse>
  /** Poll only while true. Default true. */
  enabled?: boolean
  /** An answer you already have (e.g. rendered on the server): shown before the first poll. */
  initial?: PayinStatusResponse | null
  /** Every answer, e.g. to redirect once paid. */
  onUpdate?: (response: PayinStatusResponse) => void
}

export type UsePayinStatusResult = {
  /** The latest answer (kept while later polls fail). */
  data: PayinStatusResponse | null
  /** The error of the latest poll; null after a successful one. */
  error: unknown
  /** True until the first answer or error since polling started. */
  loading: boolean
  /** Polls now. */
  refresh: () => void
  /**
   * Shows `response` at once (e.g. the answer of `POST /store/payin/pay-again`: the order's new
   * pay-in), passes it to `onUpdate`, and starts polling over from it, dropping any answer still
   * in flight for the earlier pay-in.
   */
  replace: (response: PayinStatusResponse) => void
}

/**
 * Polls the pay-in status with backoff (see {@link pollPayinStatus}) until it is final, and
 * stops on unmount.
 */
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
    const current = pollPayinStatus(() => latest.current.fetchStatus(), {
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
