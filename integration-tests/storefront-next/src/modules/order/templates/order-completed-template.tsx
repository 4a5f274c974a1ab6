import { retrievePayinStatus } from "@lib/data/payin"
import { HttpTypes } from "@medusajs/types"
import PaymentDetails from "@modules/order/components/payment-details"
import { PayinOrderHeading } from "medusa-plugin-payin-storefront/react"

type OrderCompletedTemplateProps = {
  order: HttpTypes.StoreOrder
}

// The starter's template, shortened to the heading, the order number and the Payment section;
// the pay-in lines (payinStatus, PayinOrderHeading) are the guide's.
export default async function OrderCompletedTemplate({
  order,
}: OrderCompletedTemplateProps) {
  const payinStatus = await retrievePayinStatus({ order_id: order.id }).catch(
    () => null
  )

  return (
    <div data-testid="order-complete-container">
      <h1>
        <PayinOrderHeading status={payinStatus}>
          <span>Thank you!</span>
          <span>Your order was placed successfully.</span>
        </PayinOrderHeading>
      </h1>
      <p>
        Order number: <span data-testid="order-id">{order.display_id}</span>
      </p>
      <PaymentDetails order={order} payinStatus={payinStatus} />
    </div>
  )
}
