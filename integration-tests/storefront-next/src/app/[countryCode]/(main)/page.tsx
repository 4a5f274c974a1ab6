import { sdk } from "@lib/config"
import { addToCart } from "@lib/data/cart"
import { getRegion } from "@lib/data/regions"
import { notFound, redirect } from "next/navigation"

// Instead of the starter's home, store and product pages: the first product, and a button that
// puts its first variant in the cart and goes to the checkout.
export default async function Home(props: {
  params: Promise<{ countryCode: string }>
}) {
  const { countryCode } = await props.params
  const region = await getRegion(countryCode)

  if (!region) {
    return notFound()
  }

  const { products } = await sdk.store.product.list({
    region_id: region.id,
    limit: 1,
    fields: "*variants.calculated_price",
  })
  const product = products[0]
  const variant = product?.variants?.[0]

  if (!product || !variant) {
    return notFound()
  }

  const variantId = variant.id

  async function buy() {
    "use server"
    await addToCart({ variantId, quantity: 1, countryCode })
    redirect(`/${countryCode}/checkout`)
  }

  return (
    <form action={buy}>
      <h1>{product.title}</h1>
      <p data-testid="product-price">
        {variant.calculated_price?.calculated_amount}{" "}
        {variant.calculated_price?.currency_code?.toUpperCase()}
      </p>
      <button type="submit" data-testid="add-product-button">
        Add to cart
      </button>
    </form>
  )
}
