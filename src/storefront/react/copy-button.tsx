"use client"
import { useEffect, useRef, useState } from "react"
import { copyText } from "../clipboard"
import type { Messages } from "../messages"

export type CopyTarget = "amount" | "requisite" | "sbp"

type Props = {
  /** The raw value put on the clipboard (not the formatted one on screen). */
  value: string
  target: CopyTarget
  /** The button's accessible name, naming what it copies ("Copy card number"). */
  label: string
  /** What it copies, as the field is labelled ("Card number"): named again once copied. */
  what: string
  messages: Messages
}

const COPIED_MS = 2000

/** A copy button whose result is announced through its own polite live region. */
export function CopyButton({ value, target, label, what, messages }: Props) {
  const [result, setResult] = useState<"copied" | "failed" | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout>>()
  useEffect(() => () => clearTimeout(timer.current), [])

  const onClick = async () => {
    const copied = await copyText(value)
    setResult(copied ? "copied" : "failed")
    clearTimeout(timer.current)
    timer.current = setTimeout(() => setResult(null), copied ? COPIED_MS : COPIED_MS * 3)
  }

  return (
    <>
      <button
        type="button"
        className="payin-copy"
        data-payin="copy"
        data-copy-target={target}
        data-copy-value={value}
        data-copied={result === "copied" ? "true" : undefined}
        // while it says "Copied" its name starts with that word (WCAG 2.5.3: the name contains the
        // visible text) and still says what it copies
        aria-label={result === "copied" ? messages.copiedLabel(what) : label}
        onClick={onClick}
      >
        {result === "copied" ? messages.copied : messages.copy}
      </button>
      <span className="payin-sr" aria-live="polite" data-payin="copy-status">
        {result === "copied" ? `${messages.copiedAnnouncement}: ${what}` : result === "failed" ? messages.copyFailed : ""}
      </span>
    </>
  )
}
