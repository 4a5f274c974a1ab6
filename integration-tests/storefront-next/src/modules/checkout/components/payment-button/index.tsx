"use client"

import { isManual, isPayin } from "@lib/constants"
import { placeOrder } from "@lib/data/cart"
import { HttpTypes } from "@medusajs/types"
import { safePaymentPageUrl } from "medusa-plugin-payin-storefront" // added
import React, { useState } from "react"
import ErrorMessage from "../error-message"

type PaymentButtonProps = {
  cart: HttpTypes.StoreCart
  "data-testid": string
}

const PaymentButton: React.FC<PaymentButtonProps> = ({
  cart,
  "data-testid": dataTestId,
}) => {
  const notReady =
    !cart ||
    !cart.shipping_address ||
    !cart.billing_address ||
    !cart.email ||
    (cart.shipping_methods?.length ?? 0) < 1

  const paymentSession = cart.payment_collection?.payment_sessions?.[0]

  switch (true) {
    // added
    case isPayin(paymentSession?.provider_id):
      return (
        <PayinPaymentButton
          notReady={notReady}
          paymentPageUrl={safePaymentPageUrl(paymentSession?.data?.payment_page_url)}
          data-testid={dataTestId}
        />
      )
    case isManual(paymentSession?.provider_id):
      return (
        <ManualTestPaymentButton notReady={notReady} data-testid={dataTestId} />
      )
    default:
      return <button disabled>Select a payment method</button>
  }
}

// added: places the order at once, like the manual button: it waits for the transfer
// (payment_status "awaiting") and the order page shows what to pay. A shopper may also pay on
// the hosted Payment Page first: its return route (payin-return/route.ts) places the order.
const PayinPaymentButton = ({
  notReady,
  paymentPageUrl,
  "data-testid": dataTestId,
}: {
  notReady: boolean
  paymentPageUrl: string | null
  "data-testid"?: string
}) => {
  const [submitting, setSubmitting] = useState(false)
  const [errorMessage, setErrorMessage] = useState<string | null>(null)

  const handlePayment = () => {
    setSubmitting(true)
    placeOrder()
      .catch((err) => {
        setErrorMessage(err.message)
      })
      .finally(() => {
        setSubmitting(false)
      })
  }

  return (
    <>
      <button
        disabled={notReady || submitting}
        onClick={handlePayment}
        data-testid={dataTestId}
      >
        Place order
      </button>
      {paymentPageUrl && (
        <a href={paymentPageUrl} data-testid="payin-payment-page-link">
          Pay on the payment page now
        </a>
      )}
      <ErrorMessage
        error={errorMessage}
        data-testid="payin-payment-error-message"
      />
    </>
  )
}

const ManualTestPaymentButton = ({
  notReady,
  "data-testid": dataTestId,
}: {
  notReady: boolean
  "data-testid"?: string
}) => {
  const [submitting, setSubmitting] = useState(false)
  const [errorMessage, setErrorMessage] = useState<string | null>(null)

  const handlePayment = () => {
    setSubmitting(true)
    placeOrder()
      .catch((err) => {
        setErrorMessage(err.message)
      })
      .finally(() => {
        setSubmitting(false)
      })
  }

  return (
    <>
      <button
        disabled={notReady || submitting}
        onClick={handlePayment}
        data-testid={dataTestId}
      >
        Place order
      </button>
      <ErrorMessage
        error={errorMessage}
        data-testid="manual-payment-error-message"
      />
    </>
  )
}

export default PaymentButton
