"use client"
import { useCallback, useMemo, useState, type ReactNode } from "react"
import { clockOffset } from "../countdown"
import { getMessages, type Messages, type PayinLocale } from "../messages"
import type { PayinStatusResponse } from "../types"
import { PayinInstructions } from "./instructions"
import type { PayinPayAgainResult } from "../store-client"
import { PayinPayAgain } from "./pay-again"
import { publishPayinStatus } from "./status-channel"
import { PAYIN_CSS } from "./styles"
import { usePayinStatus } from "./use-payin-status"

export type PayinLiveInstructionsProps = {
  /** Fetches the status, e.g. `() => client.status({ order_id })`. */
  fetchStatus: () => Promise<PayinStatusResponse>
  locale?: PayinLocale
  messages?: Partial<Messages>
  actions?: ReactNode
  className?: string
  unstyled?: boolean
  /** Nonce for the built-in <style> element (strict Content-Security-Policy). */
  nonce?: string
  /** Every answer, e.g. to redirect once paid. */
  onUpdate?: (response: PayinStatusResponse) => void
  /** An answer you already have (e.g. rendered on the server). */
  initial?: PayinStatusResponse | null
  /**
   * Asks for new payment details (`POST /store/payin/pay-again`), e.g.
   * `() => client.payAgain({ order_id })`, or a server action that resolves with `{ error }`
   * rather than throwing. While the answer's `pay_again` is set and the pay-in ended unpaid
   * (expired or canceled), a "Get new payment details" button (`payin-pay-again`) calls it and
   * shows the new pay-in it answers with; without it there is no button.
   */
  payAgain?: () => Promise<PayinPayAgainResult>
}

/** Clock offsets closer than this to the current one are jitter (network latency), not news. */
const OFFSET_JITTER_MS = 1000

function errorDetail(error: unknown): string | null {
  return error instanceof Error && error.message ? error.message : null
}

/** The shopper may ask for new payment details: the pay-in ended unpaid and `pay_again` is set. */
function payAgainOpen(data: PayinStatusResponse): boolean {
  const state = data.payin?.state
  return !!data.pay_again?.until && (state === "expired" || state === "canceled")
}

/**
 * {@link PayinInstructions} kept up to date: polls `fetchStatus` until the pay-in is final,
 * corrects the countdown with the server's clock, refreshes when the window ends, and shows
 * loading and error states (with a retry button). With `payAgain`, a pay-in that ended unpaid
 * offers new payment details while the answer's `pay_again` allows it.
 */
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
        outcomeActions={until && payAgain ? <PayinPayAgain until={until} payAgain={payAgain} onDone={replace} locale={locale} messages={props.messages} /> : null}
        notice={error ? m.reconnecting : null}
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
