"use client"
import { useEffect, useRef, useState } from "react"
import { startCountdown, timeLeft, type TimeLeft } from "../countdown"

/** `onExpire` runs once per `expiresAt`: running it on every re-render with a new clock offset would turn the window's end into a request loop. */
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
