"use client"
import { useEffect, useRef, useState } from "react"
import { startCountdown, timeLeft, type TimeLeft } from "../countdown"

/**
 * Time left until `expiresAt`, re-rendering once a second. `onExpire` runs once per `expiresAt`,
 * even when the component re-renders with a new clock offset after every poll: calling a
 * refresh again on each of those would turn the end of the window into a request loop.
 */
export function useCountdown(expiresAt: string | null, clockOffsetMs: number, onExpire?: () => void): TimeLeft {
  const [left, setLeft] = useState<TimeLeft>(() => timeLeft(expiresAt, Date.now(), clockOffsetMs))
  const onExpireRef = useRef(onExpire)
  const firedFor = useRef<string | null>(null)
  useEffect(() => {
    onExpireRef.current = onExpire
  })
  useEffect(() => {
    if (!expiresAt) {
      setLeft(timeLeft(null, 0))
      return
    }
    return startCountdown(expiresAt, setLeft, {
      clockOffsetMs,
      onExpire: () => {
        if (firedFor.current === expiresAt) return
        firedFor.current = expiresAt
        onExpireRef.current?.()
      },
    })
  }, [expiresAt, clockOffsetMs])
  return left
}
