import { retrievePayinStatus } from "@lib/data/payin"
import { HttpTypes } from "@medusajs/types"
import PaymentDetails from "@modules/order/components/payment-details"

type OrderCompletedTemplateProps = {
  order: HttpTypes.StoreOrder
}

// The starter's template, shortened to the order number and the Payment section.
export default async function OrderCompletedTemplate({
  order,
}: OrderCompletedTemplateProps) {
  // added: the pay-in as the server sees it now (null for other payment methods)
  const payinStatus = await retrievePayinStatus({ order_id: order.id }).catch(
    () => null
  )

  return (
    <div data-testid="order-complete-container">
      <h1>
        <span>Thank you!</span>
        <span>Your order was placed successfully.</span>
      </h1>
      <p>
        Order number: <span data-testid="order-id">{order.display_id}</span>
      </p>
      <PaymentDetails order={order} payinStatus={payinStatus} />
    </div>
  )
}
