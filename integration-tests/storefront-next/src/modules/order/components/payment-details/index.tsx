import { paymentInfoMap } from "@lib/constants"
import { retrievePayinStatus } from "@lib/data/payin" // added
import { HttpTypes } from "@medusajs/types"
import type { PayinStatusResponse } from "medusa-plugin-payin-storefront" // added
import { PayinLiveInstructions } from "medusa-plugin-payin-storefront/react" // added

type PaymentDetailsProps = {
  order: HttpTypes.StoreOrder
  payinStatus?: PayinStatusResponse | null // added
}

const PaymentDetails = ({ order, payinStatus }: PaymentDetailsProps) => {
  const payment = order.payment_collections?.[0].payments?.[0]

  return (
    <div>
      <h2>Payment</h2>
      {/* added: a pay-in order has no payment until the money arrives (payment_status
          "awaiting"): show what to pay, live, until it is paid or the window ends */}
      {payinStatus?.payin ? (
        <PayinLiveInstructions
          initial={payinStatus}
          fetchStatus={retrievePayinStatus.bind(null, { order_id: order.id })}
        />
      ) : (
        payment && (
          <div>
            <p data-testid="payment-method">
              {paymentInfoMap[payment.provider_id]?.title}
            </p>
            <p data-testid="payment-amount">
              {payment.amount} {order.currency_code.toUpperCase()} paid at{" "}
              {new Date(payment.created_at ?? "").toLocaleString()}
            </p>
          </div>
        )
      )}
    </div>
  )
}

export default PaymentDetails
