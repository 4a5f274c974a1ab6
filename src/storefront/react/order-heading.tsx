"use client"
import { useEffect, useMemo, useState, type ReactNode } from "react"
import { payinOrderOutcome } from "../checkout"
import { getMessages, type Messages, type PayinLocale } from "../messages"
import type { PayinStatusResponse } from "../types"
import { payinStatusKey, subscribePayinStatus } from "./status-channel"

export type PayinOrderHeadingProps = {
  /** `GET /store/payin/status?order_id=…` as read on the server (null: not a pay-in order). */
  status: PayinStatusResponse | null | undefined
  /** The store's own heading, shown for orders paid otherwise. */
  children?: ReactNode
  locale?: PayinLocale
  messages?: Partial<Messages>
}

/**
 * The order page's heading lines for a pay-in order, in place of "Your order was placed
 * successfully.": awaiting payment, paid, or not paid (window ended; the order canceled). It
 * follows the `PayinLiveInstructions` of the same order on the page, without polling itself.
 * Renders two `<span>`s (the starter's heading is a column of two) inside a `display: contents`
 * wrapper with `data-testid="payin-order-heading"` and `data-outcome` (awaiting | paid | unpaid).
 */
export function PayinOrderHeading({ status, children, locale = "en", messages }: PayinOrderHeadingProps) {
  const m = useMemo(() => getMessages(locale, messages), [locale, messages])
  const [current, setCurrent] = useState(status ?? null)
  const key = payinStatusKey(status)
  useEffect(() => (key ? subscribePayinStatus(key, setCurrent) : undefined), [key])

  const outcome = payinOrderOutcome(current)
  if (!outcome) return <>{children}</>
  const [first, second] =
    outcome === "paid"
      ? [m.thankYou, m.orderPaid]
      : outcome === "unpaid"
        ? [m.orderUnpaidTitle, current?.order?.status === "canceled" ? `${m.orderUnpaidText} ${m.orderCanceled}` : m.orderUnpaidText]
        : [m.thankYou, m.orderAwaitingPayment]
  return (
    <span style={{ display: "contents" }} data-testid="payin-order-heading" data-outcome={outcome}>
      <span>{first}</span>
      <span>{second}</span>
    </span>
  )
}
