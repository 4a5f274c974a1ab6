import { paymentInfoMap } from "@lib/constants"
import { payinPayAgain, retrievePayinStatus } from "@lib/data/payin"
import { HttpTypes } from "@medusajs/types"
import type { PayinStatusResponse } from "medusa-plugin-payin-storefront"
import { PayinLiveInstructions } from "medusa-plugin-payin-storefront/react"

type PaymentDetailsProps = {
  order: HttpTypes.StoreOrder
  payinStatus?: PayinStatusResponse | null
}

// The starter's payment section, without its UI components; the pay-in lines are the guide's.
const PaymentDetails = ({ order, payinStatus }: PaymentDetailsProps) => {
  const payment = order.payment_collections?.[0].payments?.[0]

  return (
    <div>
      <h2>Payment</h2>
      <div>
        {payinStatus?.payin && (
          <PayinLiveInstructions
            initial={payinStatus}
            fetchStatus={retrievePayinStatus.bind(null, { order_id: order.id })}
            payAgain={payinPayAgain.bind(null, order.id)}
          />
        )}
        {payment && (
          <div>
            <p data-testid="payment-method">
              {paymentInfoMap[payment.provider_id]?.title}
            </p>
            <p data-testid="payment-amount">
              {payment.amount} {order.currency_code.toUpperCase()} paid at{" "}
              {new Date(payment.created_at ?? "").toLocaleString()}
            </p>
          </div>
        )}
      </div>
    </div>
  )
}

export default PaymentDetails
