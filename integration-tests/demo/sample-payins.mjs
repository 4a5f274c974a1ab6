// Sample pay-ins for the demo, made the way a shopper and the payment service would make them:
// store API checkouts, then the sandbox's control API (pay, expire, dispute) sending real signed
// webhooks to the store. The admin's Pay-ins page, detail page and order widget then have data.
//
// makeSamples({ backendUrl, sandboxUrl, seed, admin: { email, password }, log }) → { [name]: { orderId, payinId, ledgerId } }

const COUNTRY = "ru"

async function call(baseUrl, method, path, body, headers = {}) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  const data = text ? JSON.parse(text) : null
  if (res.status >= 400) {
    throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
  }
  return data
}

async function waitFor(what, check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

export async function makeSamples({ backendUrl, sandboxUrl, seed, admin, log = console.log }) {
  const store = { "x-publishable-api-key": seed.publishableKey, "user-agent": "PayinDemoShopper/1.0" }
  const { token } = await call(backendUrl, "POST", "/auth/user/emailpass", admin)
  const adminHeaders = { authorization: `Bearer ${token}` }
  const sandbox = (method, path, body) => call(sandboxUrl, method, path, body)

  const ledgerRow = async (sessionId) =>
    (await call(backendUrl, "GET", `/admin/payin/transactions?q=${sessionId}`, undefined, adminHeaders)).transactions[0]

  /** A cart, a pay-in session, and (orderFirst) the order placed awaiting payment. */
  const checkout = async (name, { method } = {}) => {
    const address = {
      first_name: "Анна",
      last_name: "Смирнова",
      address_1: "Тверская ул., 1",
      city: "Москва",
      postal_code: "101000",
      country_code: COUNTRY,
    }
    const { cart } = await call(
      backendUrl,
      "POST",
      "/store/carts",
      {
        region_id: seed.regionId,
        email: `${name}-${Date.now().toString(36)}@shopper.demo`,
        items: [{ variant_id: seed.productVariantId, quantity: 1 }],
        shipping_address: address,
        billing_address: address,
      },
      store
    )
    await call(backendUrl, "POST", `/store/carts/${cart.id}/shipping-methods`, { option_id: seed.shippingOptionId }, store)
    const { payment_collection } = await call(backendUrl, "POST", "/store/payment-collections", { cart_id: cart.id }, store)
    const created = await call(
      backendUrl,
      "POST",
      `/store/payment-collections/${payment_collection.id}/payment-sessions`,
      { provider_id: "pp_payin_default", ...(method ? { data: { method } } : {}) },
      store
    )
    const session = created.payment_collection.payment_sessions.find((s) => s.provider_id === "pp_payin_default")
    const completed = await call(backendUrl, "POST", `/store/carts/${cart.id}/complete`, {}, store)
    if (completed.type !== "order") {
      throw new Error(`cart ${cart.id} did not become an order: ${JSON.stringify(completed.error ?? completed).slice(0, 200)}`)
    }
    return { cartId: cart.id, sessionId: session.id, payinId: session.data.payin_id, orderId: completed.order.id }
  }

  const waitStatus = (c, status) =>
    waitFor(`${c.payinId} to be ${status} in the store`, async () => {
      const row = await ledgerRow(c.sessionId)
      return row?.status === status ? row : null
    })

  const samples = {}
  const make = async (name, fn) => {
    try {
      const result = await fn()
      samples[name] = result
      log(`sample "${name}": order ${result.orderId}, pay-in ${result.ledgerId} (${result.status})`)
    } catch (error) {
      log(`sample "${name}" could not be made: ${error.message}`)
    }
  }

  // 1. paid in full: the webhook captures the payment
  await make("paid", async () => {
    const c = await checkout("paid", { method: "card" })
    await sandbox("POST", `/_sandbox/transactions/${c.payinId}/pay`)
    const row = await waitStatus(c, "closed")
    await waitFor("the capture", async () => (await ledgerRow(c.sessionId))?.captured_at)
    return { orderId: c.orderId, payinId: c.payinId, ledgerId: row.id, status: row.status }
  })

  // 2. placed, awaiting the shopper's transfer
  await make("awaiting", async () => {
    const c = await checkout("awaiting", { method: "phone_number" })
    const row = await waitStatus(c, "active")
    return { orderId: c.orderId, payinId: c.payinId, ledgerId: row.id, status: row.status }
  })

  // 3. the payment window ended unpaid: the order is canceled
  await make("expired", async () => {
    const c = await checkout("expired")
    await sandbox("POST", `/_sandbox/transactions/${c.payinId}/expire`)
    const row = await waitStatus(c, "canceled")
    return { orderId: c.orderId, payinId: c.payinId, ledgerId: row.id, status: row.status }
  })

  // 4. the shopper paid a different amount after the window and opened a dispute with a receipt
  await make("dispute", async () => {
    const c = await checkout("dispute", { method: "card" })
    await sandbox("POST", `/_sandbox/transactions/${c.payinId}/expire`)
    await waitStatus(c, "canceled")
    await sandbox("POST", `/_sandbox/transactions/${c.payinId}/dispute`, { fiatAmount: "1700.00" })
    const row = await waitStatus(c, "dispute")
    return { orderId: c.orderId, payinId: c.payinId, ledgerId: row.id, status: row.status }
  })

  return samples
}
