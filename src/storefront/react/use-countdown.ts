"use client"
import { useEffect, useRef, useState } from "react"
import { startCountdown, timeLeft, type TimeLeft } from "../countdown"
import { countdownAnnouncer } from "./announce"

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

/**
 * The text of the countdown's polite live region: set only when the time left crosses a coarse
 * step ({@link countdownAnnouncer}), "" while the countdown is not running.
 */
export function useCountdownAnnouncement(totalSeconds: number, running: boolean, words: (seconds: number) => string): string {
  const [text, setText] = useState("")
  const wordsRef = useRef(words)
  const announcer = useRef<((totalSeconds: number) => string | null) | null>(null)
  useEffect(() => {
    wordsRef.current = words
  })
  useEffect(() => {
    if (!running) {
      announcer.current = null
      setText("")
      return
    }
    announcer.current ??= countdownAnnouncer((seconds) => wordsRef.current(seconds))
    const said = announcer.current(totalSeconds)
    if (said) setText(said)
  }, [totalSeconds, running])
  return text
}
