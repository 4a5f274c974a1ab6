"use client"

import { paymentInfoMap } from "@lib/constants"
import { initiatePaymentSession } from "@lib/data/cart"
import { HttpTypes } from "@medusajs/types"
import ErrorMessage from "@modules/checkout/components/error-message"
import { isPayinProvider, type PayinBanksResponse } from "medusa-plugin-payin-storefront"
import {
  PayinBankMethodSelect,
  usePayinChoice,
} from "medusa-plugin-payin-storefront/react"
import { useState } from "react"

// The starter's payment step (dtc-starter's src/modules/checkout/components/payment), shortened:
// plain radio buttons instead of its RadioGroup and PaymentContainer, no Stripe, no steps (the
// Place order button shows once there is a session). The pay-in lines are the guide's.
const Payment = ({
  cart,
  availablePaymentMethods,
  payinBanks,
}: {
  cart: HttpTypes.StoreCart
  availablePaymentMethods: { id: string }[]
  payinBanks?: PayinBanksResponse | null
}) => {
  const activeSession = cart.payment_collection?.payment_sessions?.find(
    (paymentSession) => paymentSession.status === "pending"
  )

  const [isLoading, setIsLoading] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [selectedPaymentMethod, setSelectedPaymentMethod] = useState(
    activeSession?.provider_id ?? ""
  )

  const payin = usePayinChoice(cart, { banks: payinBanks })

  const handleSubmit = async () => {
    setIsLoading(true)
    try {
      const checkActiveSession = payin.keeps(selectedPaymentMethod)

      if (!checkActiveSession) {
        const result = await initiatePaymentSession(cart, {
          provider_id: selectedPaymentMethod,
          data: payin.sessionData(selectedPaymentMethod),
        })
        if ("error" in result) return setError(payin.errorText(result.error))
      }
      setError(null)
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    } finally {
      setIsLoading(false)
    }
  }

  return (
    <div>
      <h2>Payment</h2>
      {payin.offered(availablePaymentMethods).map((paymentMethod) => (
        <label
          key={paymentMethod.id}
          data-testid={isPayinProvider(paymentMethod.id) ? "payin-payment-option" : undefined}
        >
          <input
            type="radio"
            name="payment-method"
            value={paymentMethod.id}
            checked={selectedPaymentMethod === paymentMethod.id}
            onChange={() => {
              setError(null)
              setSelectedPaymentMethod(paymentMethod.id)
            }}
          />
          {paymentInfoMap[paymentMethod.id]?.title || paymentMethod.id}
        </label>
      ))}
      <PayinBankMethodSelect
        choice={payin}
        providerId={selectedPaymentMethod}
      />

      <ErrorMessage error={error} data-testid="payment-method-error-message" />

      <button
        onClick={handleSubmit}
        disabled={!selectedPaymentMethod || isLoading}
        data-testid="submit-payment-button"
      >
        Continue to review
      </button>
    </div>
  )
}

export default Payment
