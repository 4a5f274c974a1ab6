"use client"

import { isPayin, paymentInfoMap } from "@lib/constants"
import { initiatePaymentSession } from "@lib/data/cart"
import { HttpTypes } from "@medusajs/types"
import ErrorMessage from "@modules/checkout/components/error-message"
import {
  getMessages,
  type PayinBanksResponse,
} from "medusa-plugin-payin-storefront" // added
import { useParams } from "next/navigation"
import { useState } from "react"

const messages = getMessages("en") // added: the kit's texts (bank, method and error names)

const Payment = ({
  cart,
  availablePaymentMethods,
  payinBanks,
}: {
  cart: HttpTypes.StoreCart
  availablePaymentMethods: HttpTypes.StorePaymentProvider[]
  payinBanks: PayinBanksResponse | null // added: listPayinBanks(cart.id)
}) => {
  const activeSession = cart.payment_collection?.payment_sessions?.find(
    (paymentSession) => paymentSession.status === "pending"
  )

  const [isLoading, setIsLoading] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [selectedPaymentMethod, setSelectedPaymentMethod] = useState(
    activeSession?.provider_id ?? ""
  )
  // added: the shopper's bank and method for a pay-in (optional: "" lets the service choose)
  const [bank, setBank] = useState("")
  const [method, setMethod] = useState("")
  const { countryCode } = useParams<{ countryCode: string }>()

  // added: no pay-in when the merchant account takes no payments in the cart's currency
  const paymentMethods = availablePaymentMethods.filter(
    (p) => !isPayin(p.id) || payinBanks?.available !== false
  )
  const methods =
    payinBanks?.banks.find((b) => b.name === bank)?.methods ??
    payinBanks?.methods ??
    []

  const handleSubmit = async () => {
    setIsLoading(true)
    setError(null)
    try {
      // added: the hosted Payment Page sends the shopper back to payin-return/route.ts
      const back = `${window.location.origin}/${countryCode}/payin-return?cart_id=${cart.id}`
      const result = await initiatePaymentSession(cart, {
        provider_id: selectedPaymentMethod,
        ...(isPayin(selectedPaymentMethod) && {
          data: {
            ...(bank && { bank }),
            ...(method && { method }),
            locale: "EN",
            success_url: back,
            failure_url: back,
          },
        }),
      })
      // changed: the action resolves with the error instead of throwing
      if (result.error) {
        setError(messages.errorText(result.error.code, result.error.message))
      }
    } catch (err: any) {
      setError(err.message)
    } finally {
      setIsLoading(false)
    }
  }

  return (
    <div>
      <h2>Payment</h2>
      {paymentMethods.map((paymentMethod) => (
        <label key={paymentMethod.id}>
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

      {/* added: bank and method of a pay-in */}
      {isPayin(selectedPaymentMethod) && payinBanks && (
        <div>
          <select
            aria-label="Bank"
            value={bank}
            onChange={(e) => {
              setBank(e.target.value)
              setMethod("")
            }}
            data-testid="payin-bank-select"
          >
            <option value="">Any bank</option>
            {payinBanks.banks.map((b) => (
              <option key={b.name} value={b.name}>
                {messages.bankName(b.name)}
              </option>
            ))}
          </select>
          <select
            aria-label="Method"
            value={method}
            onChange={(e) => setMethod(e.target.value)}
            data-testid="payin-method-select"
          >
            <option value="">Any method</option>
            {methods.map((m) => (
              <option key={m} value={m}>
                {messages.methodName(m)}
              </option>
            ))}
          </select>
        </div>
      )}

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
