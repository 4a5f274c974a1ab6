"use client"
import { useCallback, useEffect, useMemo, useRef, useState } from "react"
import { payinErrorOf, type PayinError } from "../errors"
import { formatDateTime } from "../format"
import { getMessages, type Messages, type PayinLocale } from "../messages"
import type { PayinPayAgainResult } from "../store-client"
import type { PayinStatusResponse } from "../types"

/** True when nothing has the focus any more (the focused control was removed). */
export function focusLost(): boolean {
  return typeof document !== "undefined" && (!document.activeElement || document.activeElement === document.body)
}

/** Refusals that do not go away by asking again: the button is removed, the message stays. */
const LASTING_REFUSALS = ["payin_pay_again_off", "payin_grace_over", "payin_order_paid", "payin_order_canceled", "payin_not_this_provider"]

export function payAgainClosed(error: PayinError | null): boolean {
  return !!error?.code && LASTING_REFUSALS.includes(error.code)
}

export type UsePayinPayAgainResult = {
  /** Asks for new payment details; while a call runs, further calls share it (one request). */
  run: () => Promise<void>
  busy: boolean
  error: PayinError | null
  closed: boolean
}

function errorOfResult(result: unknown): PayinError | null {
  if (!result || typeof result !== "object") return { code: null, message: "Unexpected answer", status: null }
  const error = (result as { error?: unknown }).error
  return error ? payinErrorOf(error) : null
}

/** One request at a time (a double click sends one); `onDone` gets the new pay-in. */
export function usePayinPayAgain(payAgain: () => Promise<PayinPayAgainResult>, onDone: (response: PayinStatusResponse) => void): UsePayinPayAgainResult {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<PayinError | null>(null)
  const inFlight = useRef<Promise<void> | null>(null)
  const latest = useRef({ payAgain, onDone })
  useEffect(() => {
    latest.current = { payAgain, onDone }
  })

  const run = useCallback(() => {
    if (inFlight.current) return inFlight.current
    setBusy(true)
    setError(null)
    const call = Promise.resolve()
      .then(() => latest.current.payAgain())
      .then(
        (result) => {
          const failure = errorOfResult(result)
          if (failure) setError(failure)
          else latest.current.onDone(result as PayinStatusResponse)
        },
        (e: unknown) => setError(payinErrorOf(e))
      )
      .finally(() => {
        inFlight.current = null
        setBusy(false)
      })
    inFlight.current = call
    return call
  }, [])

  return { run, busy, error, closed: payAgainClosed(error) }
}

export type PayinPayAgainProps = {
  until: string
  payAgain: () => Promise<PayinPayAgainResult>
  onDone: (response: PayinStatusResponse) => void
  locale?: PayinLocale
  messages?: Partial<Messages>
}

/** "Get new payment details" under a pay-in that ended unpaid. */
export function PayinPayAgain({ until, payAgain, onDone, locale = "en", messages }: PayinPayAgainProps) {
  const m = useMemo(() => getMessages(locale, messages), [locale, messages])
  const state = usePayinPayAgain(payAgain, onDone)
  return <PayAgainView {...state} until={until} locale={locale} messages={m} />
}

export function PayAgainView({ run, busy, error, closed, until, locale, messages: m }: UsePayinPayAgainResult & { until: string; locale: string; messages: Messages }) {
  const when = formatDateTime(until, locale)
  const errorRef = useRef<HTMLParagraphElement>(null)
  // a lasting refusal removes the button the shopper was on: the focus goes to why, not to the page's top
  useEffect(() => {
    if (closed && error && focusLost()) errorRef.current?.focus()
  }, [closed, error])
  return (
    <div className="payin-pay-again" data-payin="pay-again">
      {!closed && (
        // aria-disabled, not disabled, while the request runs: a disabled button drops the keyboard's
        // focus to the page's top; a second press joins the running request (usePayinPayAgain)
        <button
          type="button"
          className="payin-button payin-button-primary"
          data-testid="payin-pay-again"
          aria-disabled={busy || undefined}
          aria-busy={busy || undefined}
          onClick={() => void run()}
        >
          {m.payAgain}
        </button>
      )}
      {!closed && when && (
        <p className="payin-hint" data-payin="pay-again-until" suppressHydrationWarning>
          {m.payAgainUntil(when)}
        </p>
      )}
      {error && (
        <p className="payin-error" data-testid="payin-pay-again-error" role="alert" tabIndex={-1} ref={errorRef}>
          {m.errorText(error.code, error.message)}
        </p>
      )}
    </div>
  )
}
