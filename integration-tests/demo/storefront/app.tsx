// The demo storefront: product → cart → checkout (email, address, shipping, payment method and
// bank) → order page with the payment instructions from the plugin's storefront kit, live status
// and a countdown. Talks to Medusa with @medusajs/js-sdk exactly as a real storefront would; the
// "simulate" buttons are the demo's stand-in for the shopper's bank.
import Medusa from "@medusajs/js-sdk"
import type { HttpTypes } from "@medusajs/types"
import { StrictMode, useCallback, useEffect, useMemo, useState, type FormEvent, type ReactNode } from "react"
import { createRoot } from "react-dom/client"
import {
  PayinInstructions,
  clockOffset,
  createPayinStoreClient,
  formatAmount,
  isPayinProvider,
  usePayinStatus,
  type PayinBanksResponse,
  type PayinStatusResponse,
} from "../../../src/storefront/react"
import { TEXT, type Lang } from "./text"

type DemoConfig = {
  backendUrl: string
  publishableKey: string
  regionId: string
  providerId: string
  storefrontUrl: string
}

const config: DemoConfig = JSON.parse(document.getElementById("demo-config")!.textContent!)
const sdk = new Medusa({ baseUrl: config.backendUrl, publishableKey: config.publishableKey })
const payin = createPayinStoreClient({
  request: (path, query) => sdk.client.fetch(path, { query }),
})
const CART_KEY = "payin-demo-cart"
const LANG_KEY = "payin-demo-lang"

// ---------------------------------------------------------------------------------------------
// Routing: four pages, history API
// ---------------------------------------------------------------------------------------------

type Route = { name: "shop" } | { name: "checkout" } | { name: "order"; id: string } | { name: "return"; cartId: string | null }

function parseRoute(): Route {
  const { pathname, search } = window.location
  const order = /^\/order\/([\w-]+)$/.exec(pathname)
  if (order) return { name: "order", id: order[1] }
  if (pathname === "/checkout") return { name: "checkout" }
  if (pathname === "/return") return { name: "return", cartId: new URLSearchParams(search).get("cart_id") }
  return { name: "shop" }
}

function navigate(to: string) {
  window.history.pushState(null, "", to)
  window.dispatchEvent(new PopStateEvent("popstate"))
}

function errorText(error: unknown): string {
  if (error && typeof error === "object" && "message" in error) return String((error as { message: unknown }).message)
  return String(error)
}

// ---------------------------------------------------------------------------------------------
// App shell
// ---------------------------------------------------------------------------------------------

function App() {
  const [route, setRoute] = useState<Route>(parseRoute)
  const [lang, setLang] = useState<Lang>(() => {
    const saved = localStorage.getItem(LANG_KEY)
    if (saved === "en" || saved === "ru") return saved
    return navigator.language.toLowerCase().startsWith("ru") ? "ru" : "en"
  })
  useEffect(() => {
    const onPop = () => setRoute(parseRoute())
    window.addEventListener("popstate", onPop)
    return () => window.removeEventListener("popstate", onPop)
  }, [])
  useEffect(() => {
    localStorage.setItem(LANG_KEY, lang)
    document.documentElement.lang = lang
    document.title = TEXT[lang].storeName
  }, [lang])
  const t = TEXT[lang]

  return (
    <>
      <style>{SHOP_CSS}</style>
      <header className="shop-header">
        <a
          href="/"
          className="shop-brand"
          onClick={(e) => {
            e.preventDefault()
            navigate("/")
          }}
        >
          {t.storeName}
        </a>
        <div role="group" aria-label={t.language} className="shop-lang">
          {(["en", "ru"] as const).map((l) => (
            <button key={l} type="button" aria-pressed={lang === l} onClick={() => setLang(l)} data-lang={l}>
              {l.toUpperCase()}
            </button>
          ))}
        </div>
      </header>
      <main className="shop-main">
        {route.name === "shop" && <Shop lang={lang} />}
        {route.name === "checkout" && <Checkout lang={lang} />}
        {route.name === "order" && <OrderPage key={route.id} lang={lang} orderId={route.id} />}
        {route.name === "return" && <Return lang={lang} cartId={route.cartId} />}
      </main>
      <footer className="shop-footer">{t.footer}</footer>
    </>
  )
}

// ---------------------------------------------------------------------------------------------
// Product page
// ---------------------------------------------------------------------------------------------

function Shop({ lang }: { lang: Lang }) {
  const t = TEXT[lang]
  const [product, setProduct] = useState<HttpTypes.StoreProduct | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    sdk.store.product
      .list({ region_id: config.regionId, fields: "*variants.calculated_price" })
      .then(({ products }) => setProduct(products[0] ?? null))
      .catch((e) => setError(errorText(e)))
  }, [])

  const variant = product?.variants?.[0]
  const price = variant?.calculated_price

  const addToCart = async () => {
    if (!variant) return
    setBusy(true)
    setError(null)
    try {
      let cartId = localStorage.getItem(CART_KEY)
      if (cartId) {
        const { cart } = await sdk.store.cart.retrieve(cartId).catch(() => ({ cart: null as HttpTypes.StoreCart | null }))
        if (!cart || cart.completed_at) cartId = null
      }
      if (cartId) {
        await sdk.store.cart.createLineItem(cartId, { variant_id: variant.id, quantity: 1 })
      } else {
        const { cart } = await sdk.store.cart.create({ region_id: config.regionId, items: [{ variant_id: variant.id, quantity: 1 }] })
        localStorage.setItem(CART_KEY, cart.id)
      }
      navigate("/checkout")
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }

  if (error) return <p role="alert" className="shop-error">{error}</p>
  if (!product) return <p aria-busy="true">{t.loading}</p>
  return (
    <article className="shop-card shop-product" aria-labelledby="product-title">
      <Tshirt />
      <div>
        <h1 id="product-title">{product.title}</h1>
        <p className="shop-muted">{t.productBlurb}</p>
        {price?.calculated_amount != null && (
          <p className="shop-price" data-testid="product-price">
            {formatAmount(Number(price.calculated_amount).toFixed(2), price.currency_code ?? "rub", lang)}
          </p>
        )}
        <button type="button" className="shop-primary" onClick={addToCart} disabled={busy || !variant} data-testid="add-to-cart">
          {busy ? t.adding : t.addToCart}
        </button>
      </div>
    </article>
  )
}

function Tshirt() {
  return (
    <svg viewBox="0 0 120 120" width="160" height="160" aria-hidden="true" className="shop-art">
      <path d="M40 14 L20 26 L8 48 L24 56 L30 46 L30 108 L90 108 L90 46 L96 56 L112 48 L100 26 L80 14 Q60 30 40 14 Z" fill="#1d4ed8" />
      <path d="M48 16 Q60 26 72 16" stroke="#fff" strokeWidth="3" fill="none" />
    </svg>
  )
}

// ---------------------------------------------------------------------------------------------
// Checkout
// ---------------------------------------------------------------------------------------------

type Form = { email: string; first_name: string; last_name: string; address_1: string; city: string; postal_code: string }
const EMPTY_FORM: Form = { email: "", first_name: "", last_name: "", address_1: "", city: "", postal_code: "" }

function Checkout({ lang }: { lang: Lang }) {
  const t = TEXT[lang]
  const cartId = localStorage.getItem(CART_KEY)
  const [cart, setCart] = useState<HttpTypes.StoreCart | null>(null)
  const [form, setForm] = useState<Form>(EMPTY_FORM)
  const [shipping, setShipping] = useState<HttpTypes.StoreCartShippingOption[]>([])
  const [shippingId, setShippingId] = useState<string>("")
  const [providers, setProviders] = useState<HttpTypes.StorePaymentProvider[]>([])
  const [providerId, setProviderId] = useState<string>("")
  const [banks, setBanks] = useState<PayinBanksResponse | null>(null)
  const [banksError, setBanksError] = useState<string | null>(null)
  const [bank, setBank] = useState("")
  const [method, setMethod] = useState("")
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    if (!cartId) return
    sdk.store.cart
      .retrieve(cartId)
      .then(({ cart }) => {
        setCart(cart)
        setForm((f) => ({
          ...f,
          email: cart.email ?? f.email,
          first_name: cart.shipping_address?.first_name ?? f.first_name,
          last_name: cart.shipping_address?.last_name ?? f.last_name,
          address_1: cart.shipping_address?.address_1 ?? f.address_1,
          city: cart.shipping_address?.city ?? f.city,
          postal_code: cart.shipping_address?.postal_code ?? f.postal_code,
        }))
      })
      .catch((e) => setError(errorText(e)))
    sdk.store.fulfillment
      .listCartOptions({ cart_id: cartId })
      .then(({ shipping_options }) => {
        setShipping(shipping_options)
        setShippingId((id) => id || shipping_options[0]?.id || "")
      })
      .catch((e) => setError(errorText(e)))
    sdk.store.payment
      .listPaymentProviders({ region_id: config.regionId })
      .then(({ payment_providers }) => {
        setProviders(payment_providers)
        setProviderId((id) => id || payment_providers.find((p) => isPayinProvider(p.id))?.id || payment_providers[0]?.id || "")
      })
      .catch((e) => setError(errorText(e)))
  }, [cartId])

  useEffect(() => {
    if (!cartId || !isPayinProvider(providerId)) return
    setBanksError(null)
    payin
      .banks({ cart_id: cartId, provider_id: providerId })
      .then(setBanks)
      .catch((e) => setBanksError(errorText(e)))
  }, [cartId, providerId])

  const methods = useMemo(() => {
    if (!banks) return []
    return bank ? banks.banks.find((b) => b.name === bank)?.methods ?? [] : banks.methods
  }, [banks, bank])
  useEffect(() => {
    if (method && !methods.includes(method)) setMethod("")
  }, [methods, method])

  if (!cartId) {
    return (
      <section className="shop-card">
        <h1>{t.checkout}</h1>
        <p>{t.emptyCart}</p>
        <button type="button" className="shop-primary" onClick={() => navigate("/")}>
          {t.backToShop}
        </button>
      </section>
    )
  }

  const currency = cart?.currency_code ?? "rub"
  const selectedShipping = shipping.find((s) => s.id === shippingId)
  const total = cart ? Number(cart.item_total ?? 0) + Number(selectedShipping?.amount ?? 0) : null

  const placeOrder = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const address = {
        first_name: form.first_name,
        last_name: form.last_name,
        address_1: form.address_1,
        city: form.city,
        postal_code: form.postal_code,
        country_code: "ru",
      }
      await sdk.store.cart.update(cartId, { email: form.email, shipping_address: address, billing_address: address })
      await sdk.store.cart.addShippingMethod(cartId, { option_id: shippingId })
      const { cart: fresh } = await sdk.store.cart.retrieve(cartId)
      // The Payment Page sends the shopper back here; only allowed origins are accepted by the plugin.
      const back = `${config.storefrontUrl}/return?cart_id=${encodeURIComponent(cartId)}`
      await sdk.store.payment.initiatePaymentSession(fresh, {
        provider_id: providerId,
        ...(isPayinProvider(providerId)
          ? {
              data: {
                ...(bank ? { bank } : {}),
                ...(method ? { method } : {}),
                success_url: back,
                failure_url: back,
                locale: lang.toUpperCase(),
              },
            }
          : {}),
      })
      // Order first, payment later: the order is placed awaiting the transfer.
      const result = await sdk.store.cart.complete(cartId)
      if (result.type === "order") {
        localStorage.removeItem(CART_KEY)
        navigate(`/order/${result.order.id}`)
        return
      }
      setError(result.error?.message ?? t.orderFailed)
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }

  const field = (name: keyof Form, label: string, type = "text", autoComplete?: string) => (
    <label className="shop-field">
      <span>{label}</span>
      <input
        name={name}
        type={type}
        required
        autoComplete={autoComplete}
        value={form[name]}
        onChange={(e) => setForm({ ...form, [name]: e.target.value })}
      />
    </label>
  )

  return (
    <form className="shop-checkout" onSubmit={placeOrder} aria-labelledby="checkout-title">
      <section className="shop-card">
        <h1 id="checkout-title">{t.checkout}</h1>
        <fieldset>
          <legend>{t.contact}</legend>
          {field("email", t.email, "email", "email")}
        </fieldset>
        <fieldset>
          <legend>{t.address}</legend>
          <div className="shop-row">
            {field("first_name", t.firstName, "text", "given-name")}
            {field("last_name", t.lastName, "text", "family-name")}
          </div>
          {field("address_1", t.street, "text", "address-line1")}
          <div className="shop-row">
            {field("city", t.city, "text", "address-level2")}
            {field("postal_code", t.postalCode, "text", "postal-code")}
          </div>
          <p className="shop-muted">{t.country}</p>
        </fieldset>
        <fieldset>
          <legend>{t.shipping}</legend>
          {shipping.map((s) => (
            <label key={s.id} className="shop-choice">
              <input type="radio" name="shipping" value={s.id} checked={shippingId === s.id} onChange={() => setShippingId(s.id)} />
              <span>
                {s.name} — {formatAmount(Number(s.amount ?? 0).toFixed(2), currency, lang)}
              </span>
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>{t.payment}</legend>
          {providers.map((p) => (
            <label key={p.id} className="shop-choice">
              <input
                type="radio"
                name="provider"
                value={p.id}
                checked={providerId === p.id}
                onChange={() => setProviderId(p.id)}
                data-testid={`provider-${p.id}`}
              />
              <span>{isPayinProvider(p.id) ? t.payinLabel : p.id === "pp_system_default" ? t.manualLabel : p.id}</span>
            </label>
          ))}
          {isPayinProvider(providerId) && (
            <div className="shop-payin-options">
              <p className="shop-muted">{t.payinHint}</p>
              {banksError && <p role="alert" className="shop-error">{banksError}</p>}
              {banks && !banks.available && <p role="alert" className="shop-error">{t.payinUnavailable}</p>}
              <div className="shop-row">
                <label className="shop-field">
                  <span>{t.bank}</span>
                  <select name="bank" value={bank} onChange={(e) => setBank(e.target.value)} data-testid="bank">
                    <option value="">{t.anyBank}</option>
                    {banks?.banks.map((b) => (
                      <option key={b.name} value={b.name}>
                        {bankName(b.name)}
                      </option>
                    ))}
                  </select>
                </label>
                <label className="shop-field">
                  <span>{t.method}</span>
                  <select name="method" value={method} onChange={(e) => setMethod(e.target.value)} data-testid="method">
                    <option value="">{t.anyMethod}</option>
                    {methods.map((m) => (
                      <option key={m} value={m}>
                        {t.methods[m as keyof typeof t.methods] ?? m}
                      </option>
                    ))}
                  </select>
                </label>
              </div>
            </div>
          )}
        </fieldset>
      </section>
      <aside className="shop-card shop-summary" aria-label={t.summary}>
        <h2>{t.summary}</h2>
        {cart?.items?.map((item) => (
          <p key={item.id} className="shop-line">
            <span>
              {item.product_title ?? item.title} × {item.quantity}
            </span>
            <span>{formatAmount((Number(item.unit_price ?? 0) * item.quantity).toFixed(2), currency, lang)}</span>
          </p>
        ))}
        {selectedShipping && (
          <p className="shop-line">
            <span>{t.shipping}</span>
            <span>{formatAmount(Number(selectedShipping.amount ?? 0).toFixed(2), currency, lang)}</span>
          </p>
        )}
        {total != null && (
          <p className="shop-line shop-total">
            <span>{t.total}</span>
            <span data-testid="checkout-total">{formatAmount(total.toFixed(2), currency, lang)}</span>
          </p>
        )}
        {error && (
          <p role="alert" className="shop-error" data-testid="checkout-error">
            {error}
          </p>
        )}
        <button type="submit" className="shop-primary" disabled={busy || !shippingId || !providerId} data-testid="place-order">
          {busy ? t.placing : t.placeOrder}
        </button>
      </aside>
    </form>
  )
}

function bankName(name: string): string {
  return name.length <= 4 ? name.toUpperCase() : name[0].toUpperCase() + name.slice(1)
}

// ---------------------------------------------------------------------------------------------
// Order page: payment instructions, live status, countdown
// ---------------------------------------------------------------------------------------------

function OrderPage({ lang, orderId }: { lang: Lang; orderId: string }) {
  const t = TEXT[lang]
  const fetchStatus = useCallback(() => payin.status({ order_id: orderId }), [orderId])
  const { data, error, loading, refresh } = usePayinStatus({ fetchStatus })
  // server clock minus ours, taken when each answer arrives: a phone with a wrong clock still counts down right
  const offset = useMemo(() => (data ? clockOffset(data.server_time, Date.now()) : 0), [data])
  const [simulating, setSimulating] = useState(false)
  const [simulateError, setSimulateError] = useState<string | null>(null)

  const simulate = async (action: "pay" | "expire") => {
    if (!data?.payin?.payin_id) return
    setSimulating(true)
    setSimulateError(null)
    try {
      const res = await fetch("/demo-api/sandbox", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ payin_id: data.payin.payin_id, action }),
      })
      if (!res.ok) throw new Error((await res.json().catch(() => null))?.message ?? `HTTP ${res.status}`)
      refresh()
    } catch (e) {
      setSimulateError(errorText(e))
    } finally {
      setSimulating(false)
    }
  }

  if (!data) {
    return error ? (
      <section className="shop-card">
        <p role="alert" className="shop-error">
          {errorText(error)}
        </p>
        <button type="button" className="shop-primary" onClick={refresh}>
          {t.retry}
        </button>
      </section>
    ) : (
      <p aria-busy={loading}>{t.loading}</p>
    )
  }

  const order = data.order
  const state = data.payin?.state
  return (
    <section className="shop-order" aria-labelledby="order-title">
      <div className="shop-card">
        <h1 id="order-title">{order?.display_id ? t.orderNumber(order.display_id) : t.order}</h1>
        <OrderBanner lang={lang} data={data} />
      </div>
      {data.payin ? (
        <PayinInstructions
          payin={data.payin}
          locale={lang}
          clockOffsetMs={offset}
          onExpire={refresh}
          actions={
            <div className="shop-simulate">
              <p className="shop-muted">{t.sandboxNote}</p>
              <button type="button" onClick={() => simulate("pay")} disabled={simulating} data-testid="simulate-payment">
                {t.simulatePay}
              </button>
              <button type="button" onClick={() => simulate("expire")} disabled={simulating} data-testid="simulate-expiry">
                {t.simulateExpire}
              </button>
              {simulateError && <p role="alert" className="shop-error">{simulateError}</p>}
            </div>
          }
        />
      ) : (
        <p className="shop-card">{t.noPayin}</p>
      )}
      {(state === "expired" || state === "canceled") && (
        <p>
          <button type="button" className="shop-primary" onClick={() => navigate("/")}>
            {t.shopAgain}
          </button>
        </p>
      )}
      {error != null && <p className="shop-muted">{t.reconnecting}</p>}
    </section>
  )
}

function OrderBanner({ lang, data }: { lang: Lang; data: PayinStatusResponse }) {
  const t = TEXT[lang]
  const order = data.order
  const state = data.payin?.state
  let tone = "info"
  let text: ReactNode = t.orderAwaiting
  if (state === "paid" || order?.payment_status === "captured") {
    tone = "ok"
    text = t.orderPaid
  } else if (order?.status === "canceled" || state === "expired" || state === "canceled") {
    tone = "bad"
    text = t.orderUnpaid
  } else if (state === "in_review") {
    text = t.orderReview
  }
  return (
    <p className={`shop-banner shop-${tone}`} data-testid="order-banner" data-order-status={order?.status} data-payment-status={order?.payment_status}>
      {text}
    </p>
  )
}

// ---------------------------------------------------------------------------------------------
// Back from the hosted Payment Page: find the order of the cart, show it
// ---------------------------------------------------------------------------------------------

function Return({ lang, cartId }: { lang: Lang; cartId: string | null }) {
  const t = TEXT[lang]
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    if (!cartId) {
      setError(t.noCart)
      return
    }
    payin
      .status({ cart_id: cartId })
      .then(async (status) => {
        if (status.order) return navigate(`/order/${status.order.id}`)
        // paid before the order was placed: completing the cart places it (or returns it)
        const result = await sdk.store.cart.complete(cartId)
        if (result.type === "order") return navigate(`/order/${result.order.id}`)
        setError(result.error?.message ?? t.orderFailed)
      })
      .catch((e) => setError(errorText(e)))
  }, [cartId])
  return error ? (
    <p role="alert" className="shop-error">
      {error}
    </p>
  ) : (
    <p aria-busy="true">{t.returning}</p>
  )
}

// The focus rule has no specificity (:where), so the kit's own ring wins on the kit's controls;
// --shop-focus (server.mjs) is 5.0:1 on the cards' white, 4.6:1 on the page (WCAG 1.4.11 asks 3:1).
const SHOP_CSS = `
.shop-header{display:flex;justify-content:space-between;align-items:center;padding:12px 20px;background:var(--shop-card);border-bottom:1px solid var(--shop-border)}
.shop-brand{font-weight:700;color:var(--shop-fg);text-decoration:none;font-size:18px}
.shop-lang{display:flex;gap:4px}.shop-lang button{min-width:44px;min-height:44px;border:1px solid var(--shop-border);background:var(--shop-card);color:var(--shop-fg);border-radius:8px;font:inherit;cursor:pointer}
.shop-lang button[aria-pressed=true]{background:var(--shop-fg);color:#fff}
.shop-main{max-width:980px;margin:24px auto;padding:0 16px}
.shop-footer{max-width:980px;margin:32px auto;padding:0 16px;color:var(--shop-muted);font-size:13px}
.shop-card{background:var(--shop-card);border:1px solid var(--shop-border);border-radius:12px;padding:20px;margin-bottom:16px}
.shop-product{display:flex;gap:24px;align-items:center;flex-wrap:wrap}.shop-product h1{margin:0 0 8px}
.shop-price{font-size:24px;font-weight:700}.shop-muted{color:var(--shop-muted)}
.shop-primary{min-height:44px;padding:10px 20px;border:0;border-radius:8px;background:var(--shop-accent);color:#fff;font:inherit;font-weight:600;cursor:pointer;width:100%}
.shop-primary:disabled{opacity:.6;cursor:wait}
:where(button,input,select,a):where(:focus-visible){outline:3px solid var(--shop-focus);outline-offset:2px}
.shop-checkout{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr);gap:16px;align-items:start}
@media (max-width:720px){.shop-checkout{grid-template-columns:1fr}}
fieldset{border:0;padding:0;margin:0 0 16px}legend{font-weight:600;margin-bottom:8px}
.shop-field{display:flex;flex-direction:column;gap:4px;margin-bottom:10px;flex:1}
.shop-field input,.shop-field select{min-height:44px;padding:8px 10px;border:1px solid #8a909c;border-radius:8px;font:inherit;background:#fff;color:var(--shop-fg)}
.shop-row{display:flex;gap:12px;flex-wrap:wrap}.shop-choice{display:flex;gap:8px;align-items:center;min-height:44px}
.shop-choice input{width:20px;height:20px}
.shop-line{display:flex;justify-content:space-between;gap:8px}.shop-total{font-weight:700;border-top:1px solid var(--shop-border);padding-top:8px}
.shop-error{color:#b42318;background:#fef3f2;border:1px solid #fecdca;padding:8px 10px;border-radius:8px}
.shop-banner{padding:10px 12px;border-radius:8px;margin:8px 0 0;font-weight:600}
.shop-info{background:#eff4ff;color:#1e3a8a}.shop-ok{background:#ecfdf3;color:#05603a}.shop-bad{background:#fef3f2;color:#912018}
.shop-order h1{margin:0}
.shop-simulate{display:flex;flex-wrap:wrap;gap:8px;align-items:center;border-top:1px dashed var(--shop-border);padding-top:12px;margin-top:8px}
.shop-simulate p{flex-basis:100%;margin:0}
.shop-simulate button{min-height:44px;padding:8px 14px;border:1px solid #8a909c;border-radius:8px;background:#fff;color:var(--shop-fg);font:inherit;cursor:pointer}
`

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>
)
