import { sdk } from "@lib/config"
import { setAddresses, setShippingMethod } from "@lib/data/cart"
import { listPayinBanks } from "@lib/data/payin"
import { listCartPaymentMethods } from "@lib/data/payment"
import { HttpTypes } from "@medusajs/types"
import Payment from "@modules/checkout/components/payment"
import PaymentButton from "@modules/checkout/components/payment-button"

// The starter's checkout steps on one page, shortened: plain address and delivery forms
// (its Addresses and Shipping components), then Payment and the Place order button (its Review).
// The pay-in lines (listPayinBanks, payinBanks) are the guide's.
export default async function CheckoutForm({
  cart,
  countryCode,
}: {
  cart: HttpTypes.StoreCart
  countryCode: string
}) {
  const { shipping_options } = await sdk.store.fulfillment.listCartOptions({
    cart_id: cart.id,
  })
  const paymentMethods = await listCartPaymentMethods(cart.region_id ?? "")
  const payinBanks = await listPayinBanks(cart.id)

  return (
    <div>
      <form action={setAddresses}>
        <h2>Shipping Address</h2>
        <input name="email" type="email" placeholder="Email" required />
        {["first_name", "last_name", "address_1", "city", "postal_code"].map(
          (field) => (
            <input
              key={field}
              name={`shipping_address.${field}`}
              placeholder={field.replace("_", " ")}
              required
            />
          )
        )}
        <input
          name="shipping_address.country_code"
          type="hidden"
          value={countryCode}
        />
        <button type="submit" data-testid="submit-address-button">
          Continue to delivery
        </button>
      </form>

      {cart.shipping_address && (
        <form action={setShippingMethod}>
          <h2>Delivery</h2>
          {shipping_options.map((option) => (
            <label key={option.id}>
              <input
                type="radio"
                name="shipping_method_id"
                value={option.id}
                required
              />
              {option.name}
            </label>
          ))}
          <button type="submit" data-testid="submit-delivery-option-button">
            Continue to payment
          </button>
        </form>
      )}

      {!!cart.shipping_methods?.length && paymentMethods && (
        <Payment
          cart={cart}
          availablePaymentMethods={paymentMethods}
          payinBanks={payinBanks}
        />
      )}

      {!!cart.payment_collection?.payment_sessions?.length && (
        <PaymentButton cart={cart} data-testid="submit-order-button" />
      )}
    </div>
  )
}
