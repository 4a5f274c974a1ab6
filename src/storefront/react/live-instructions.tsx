"use client"
import { useCallback, useMemo, useState, type ReactNode } from "react"
import { clockOffset } from "../countdown"
import { getMessages, type Messages, type PayinLocale } from "../messages"
import type { PayinStatusWait } from "../poll"
import type { PayinStatusResponse } from "../types"
import { PayinInstructions } from "./instructions"
import type { PayinPayAgainResult } from "../store-client"
import { PayinPayAgain } from "./pay-again"
import { publishPayinStatus } from "./status-channel"
import { PAYIN_CSS } from "./styles"
import { usePayinStatus } from "./use-payin-status"

export type PayinLiveInstructionsProps = {
  /** Pass `wait` on (`(wait) => client.status({ order_id }, wait)`) and a payment shows as soon as the store books it. */
  fetchStatus: (wait?: PayinStatusWait) => Promise<PayinStatusResponse>
  locale?: PayinLocale
  messages?: Partial<Messages>
  actions?: ReactNode
  className?: string
  unstyled?: boolean
  nonce?: string
  onUpdate?: (response: PayinStatusResponse) => void
  initial?: PayinStatusResponse | null
  /** Without it there is no "Get new payment details" button. */
  payAgain?: () => Promise<PayinPayAgainResult>
}

/** Clock offsets closer than this to the current one are jitter (network latency), not news. */
const OFFSET_JITTER_MS = 1000

function errorDetail(error: unknown): string | null {
  return error instanceof Error && error.message ? error.message : null
}

function payAgainOpen(data: PayinStatusResponse): boolean {
  const state = data.payin?.state
  return !!data.pay_again?.until && (state === "expired" || state === "canceled")
}

/** {@link PayinInstructions} kept up to date by polling, with loading, error and pay-again states. */
export function PayinLiveInstructions(props: PayinLiveInstructionsProps) {
  const { fetchStatus, locale = "en", actions, className, unstyled, nonce, onUpdate, initial, payAgain } = props
  const m = useMemo(() => getMessages(locale, props.messages), [locale, props.messages])
  // 0 until a live answer: a server-rendered `initial` may be minutes old.
  const [offset, setOffset] = useState(0)
  const handleUpdate = useCallback(
    (response: PayinStatusResponse) => {
      const next = clockOffset(response.server_time, Date.now())
      setOffset((previous) => (Math.abs(previous - next) >= OFFSET_JITTER_MS ? next : previous))
      publishPayinStatus(response)
      onUpdate?.(response)
    },
    [onUpdate]
  )
  const { data, error, refresh, replace } = usePayinStatus({ fetchStatus, initial, onUpdate: handleUpdate })
  // each pay-again answer shown moves the focus to the new status (the button is gone)
  const [payAgainDone, setPayAgainDone] = useState(0)
  const showPayAgain = useCallback(
    (response: PayinStatusResponse) => {
      replace(response)
      setPayAgainDone((n) => n + 1)
    },
    [replace]
  )

  if (data?.payin) {
    const until = payAgain && payAgainOpen(data) ? data.pay_again?.until : null
    return (
      <PayinInstructions
        payin={data.payin}
        order={data.order}
        locale={locale}
        messages={props.messages}
        clockOffsetMs={offset}
        onExpire={refresh}
        actions={actions}
        outcomeActions={until && payAgain ? <PayinPayAgain until={until} payAgain={payAgain} onDone={showPayAgain} locale={locale} messages={props.messages} /> : null}
        notice={error ? m.reconnecting : null}
        focusStatusKey={payAgainDone}
        className={className}
        unstyled={unstyled}
        nonce={nonce}
      />
    )
  }

  const root = ["payin-root", className].filter(Boolean).join(" ")
  const style = !unstyled && <style nonce={nonce} dangerouslySetInnerHTML={{ __html: PAYIN_CSS }} />
  if (data) {
    return (
      <>
        {style}
        <section className={root} data-payin="instructions" data-testid="payin-instructions" data-state="none" aria-label={m.title} lang={locale}>
          <p className="payin-status" data-payin="status" data-testid="payin-instructions-status" role="status" aria-live="polite">
            {m.noPayin}
          </p>
        </section>
      </>
    )
  }
  if (error) {
    const detail = errorDetail(error)
    return (
      <>
        {style}
        <section className={root} data-payin="error" data-testid="payin-instructions" data-state="error" aria-label={m.title} lang={locale}>
          <p className="payin-status" data-tone="danger" role="alert">
            {m.loadError}
            {detail && <span className="payin-notice"> {detail}</span>}
          </p>
          <button type="button" className="payin-button payin-button-primary" data-payin="retry" onClick={() => refresh()}>
            {m.retry}
          </button>
        </section>
      </>
    )
  }
  return (
    <>
      {style}
      <section className={root} data-payin="loading" data-testid="payin-instructions" data-state="loading" aria-label={m.title} aria-busy="true" lang={locale}>
        <p className="payin-status payin-busy" role="status" aria-live="polite">
          {m.loading}
        </p>
      </section>
    </>
  )
}
