"use client"
import { useEffect, useMemo, useState, type ReactNode } from "react"
import { payinOrderOutcome } from "../checkout"
import { getMessages, type Messages, type PayinLocale } from "../messages"
import type { PayinStatusResponse } from "../types"
import { payinStatusKey, subscribePayinStatus } from "./status-channel"

export type PayinOrderHeadingProps = {
  status: PayinStatusResponse | null | undefined
  /** The store's own heading, shown for orders paid otherwise. */
  children?: ReactNode
  locale?: PayinLocale
  messages?: Partial<Messages>
}

/** Follows the same order's `PayinLiveInstructions` on the page without polling itself; two `<span>`s, as the starter's heading is a column of two. */
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
