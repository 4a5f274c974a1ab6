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
  /** The cart's pay-in payment session (its `data.payment_page_url` gives the Payment Page link). */
  session: { data?: Record<string, unknown> | null } | null | undefined
  /** Disables the button (the starter's `notReady`: no address, email or shipping method yet). */
  notReady?: boolean
  /** Places the order, e.g. the starter's `placeOrder` server action (it redirects to the order page). */
  placeOrder: () => Promise<unknown>
  /** Default `submit-order-button`, the starter's. */
  "data-testid"?: string
  /** Your own button; default a plain `<button>`. */
  renderButton?: (props: PayinButtonRenderProps) => ReactNode
  /** Class of the Payment Page link (default `payin-page-link`). */
  linkClassName?: string
  /** Class of the error line (default `payin-error`). */
  errorClassName?: string
  locale?: PayinLocale
  messages?: Partial<Messages>
}

function messageOf(error: unknown): string {
  return error instanceof Error && error.message ? error.message : typeof error === "string" && error ? error : "Unknown error"
}

/**
 * The review step's button for a pay-in: places the order at once, like the manual provider's
 * button (the order then waits for the transfer, `payment_status` "awaiting", and the order page
 * shows what to pay), plus a link to the hosted Payment Page for a shopper who pays first (the
 * return route then places the order). Test ids: the button's `data-testid` (default
 * `submit-order-button`), `payin-payment-page-link`, `payin-payment-error-message`.
 */
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
