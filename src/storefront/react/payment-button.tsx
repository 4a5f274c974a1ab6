"use client"
import { useMemo, useState, type ReactNode } from "react"
import { safePaymentPageUrl } from "../links"
import { getMessages, type Messages, type PayinLocale } from "../messages"

/** What `renderButton` gets: spread it on your own button (e.g. the starter's `Button`). */
export type PayinButtonRenderProps = {
  onClick: () => void
  disabled: boolean
  /** True while the order is being placed (the starter's `Button` calls it `isLoading`). */
  loading: boolean
  "data-testid": string
  children: ReactNode
}

export type PayinPaymentButtonProps = {
  session: { data?: Record<string, unknown> | null } | null | undefined
  notReady?: boolean
  placeOrder: () => Promise<unknown>
  "data-testid"?: string
  renderButton?: (props: PayinButtonRenderProps) => ReactNode
  linkClassName?: string
  errorClassName?: string
  locale?: PayinLocale
  messages?: Partial<Messages>
}

function messageOf(error: unknown): string {
  return error instanceof Error && error.message ? error.message : typeof error === "string" && error ? error : "Unknown error"
}

/** Places the order at once (the order page then shows what to pay), plus a Payment Page link for a shopper who pays first. */
export function PayinPaymentButton(props: PayinPaymentButtonProps) {
  const { session, notReady = false, placeOrder, renderButton, linkClassName, errorClassName, locale = "en" } = props
  const m = useMemo(() => getMessages(locale, props.messages), [locale, props.messages])
  const [submitting, setSubmitting] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const pageUrl = safePaymentPageUrl(session?.data?.payment_page_url)

  const onClick = () => {
    setSubmitting(true)
    setError(null)
    Promise.resolve()
      .then(placeOrder)
      .catch((e: unknown) => setError(messageOf(e)))
      .finally(() => setSubmitting(false))
  }
  const button: PayinButtonRenderProps = {
    onClick,
    disabled: notReady || submitting,
    loading: submitting,
    "data-testid": props["data-testid"] ?? "submit-order-button",
    children: m.placeOrder,
  }

  return (
    <>
      {renderButton ? (
        renderButton(button)
      ) : (
        <button type="button" className="payin-place-order" onClick={button.onClick} disabled={button.disabled} aria-busy={submitting || undefined} data-testid={button["data-testid"]}>
          {button.children}
        </button>
      )}
      {pageUrl && (
        <p>
          <a href={pageUrl} className={linkClassName ?? "payin-page-link"} data-testid="payin-payment-page-link" rel="noopener noreferrer">
            {m.payOnPaymentPage}
          </a>
        </p>
      )}
      {error && (
        <p className={errorClassName ?? "payin-error"} role="alert" data-testid="payin-payment-error-message">
          {error}
        </p>
      )}
    </>
  )
}
