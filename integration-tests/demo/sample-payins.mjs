// Sample pay-ins for the demo, made the way a shopper and the payment service would make them:
// store API checkouts, then the sandbox's control API (pay, expire, dispute, …) sending real signed
// webhooks to the store. The admin's Pay-ins page, detail page and order widget then have data.
// Nothing is written to the database directly; every wait polls the admin API (no fixed sleeps).
//
// makeSamples({ backendUrl, sandboxUrl, seed, admin: { email, password }, log, notifications })
//   → { [name]: { orderId, cartId, payinId, ledgerId, status, flags, notifications } }
// It never throws: a sample that cannot be made is logged as a warning and left out.
// With `notifications` (the demo switches the plugin's shopper notifications on), each sample with
// an order waits for the notifications its order gets (payin.instructions when placed, payin.paid
// when captured, payin.expired when the window ends unpaid) and lists their templates, in order.
//
// The samples (independent of each other; made two at a time, which was fastest on 2 cores):
//   paid          order placed, paid in full: the webhook captures the payment
//   awaiting      order placed, the shopper has not paid yet (active pay-in)
//   expired       order placed, the payment window ended unpaid: the order is canceled
//   dispute       expired, then the shopper opened a dispute for a different amount (open dispute)
//   recalculated  order placed, disputed, checked, amount recalculated to less and closed: Medusa
//                 captures what arrived (partially captured), underpayment flagged
//   late          expired and canceled, then paid after all (dispute → close): late_payment flagged
//   stray         a cart whose pay-in session was replaced (the cart changed), the old requisites
//                 paid anyway: stray_payment flagged; the cart stays open

const COUNTRY = "ru"
const PROVIDER_ID = "pp_payin_default"

export const SAMPLE_NAMES = ["paid", "awaiting", "expired", "dispute", "recalculated", "late", "stray"]

/** An error with its cause: Node's fetch says only "fetch failed" and keeps the reason (refused port, ECONNREFUSED, …) in `cause`. */
export function describeError(error) {
  const parts = [error?.message ?? String(error)]
  for (let cause = error?.cause, depth = 0; cause && depth < 3; cause = cause.cause, depth++) {
    const text = [cause.code, cause.message].filter(Boolean).join(": ")
    if (text && !parts.includes(text)) parts.push(text)
  }
  return parts.join(" — ")
}

async function call(baseUrl, method, path, body, headers = {}) {
  const send = () =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  let res
  try {
    res = await send()
  } catch (error) {
    // `medusa develop` can block its event loop for seconds (the admin compiling on a first visit);
    // Node's server then resets an idle keep-alive connection a request was already sent on.
    // A GET changes nothing: send it again.
    if (method !== "GET" || !["ECONNRESET", "UND_ERR_SOCKET"].includes(error?.cause?.code)) throw error
    res = await send()
  }
  const text = await res.text()
  let data = null
  try {
    data = text ? JSON.parse(text) : null
  } catch {
    data = text
  }
  if (res.status >= 400) {
    throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
  }
  return data
}

/** The Notification Module's rows on `channel`, newest first, through Medusa's admin API (GET /admin/notifications). */
export async function listNotifications({ backendUrl, admin, channel = "email", to }) {
  const { token } = await call(backendUrl, "POST", "/auth/user/emailpass", admin)
  return fetchNotifications(backendUrl, { authorization: `Bearer ${token}` }, { channel, to })
}

async function fetchNotifications(backendUrl, headers, { channel = "email", to } = {}) {
  const query = new URLSearchParams({ channel, limit: "200", order: "-created_at" })
  if (to) query.set("to", to)
  const { notifications } = await call(backendUrl, "GET", `/admin/notifications?${query}`, undefined, headers)
  return notifications
}

/** Polls `check` until it returns something truthy (100 ms, then slower: the server has 2 cores to share). */
async function waitFor(what, check, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs
  for (let attempt = 1; ; attempt++) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`)
    await new Promise((r) => setTimeout(r, Math.min(100 * attempt, 500)))
  }
}

export async function makeSamples({ backendUrl, sandboxUrl, seed, admin, log = console.log, concurrency = 2, notifications = false }) {
  const samples = {}
  let adminHeaders
  try {
    const { token } = await call(backendUrl, "POST", "/auth/user/emailpass", admin)
    adminHeaders = { authorization: `Bearer ${token}` }
  } catch (error) {
    log(`WARNING: no sample pay-ins: the admin login failed (${describeError(error)})`)
    return samples
  }
  const store = { "x-publishable-api-key": seed.publishableKey, "user-agent": "PayinDemoShopper/1.0" }
  const storeCall = (method, path, body) => call(backendUrl, method, path, body, store)
  const adminGet = (path) => call(backendUrl, "GET", path, undefined, adminHeaders)
  const sandbox = (method, path, body) => call(sandboxUrl, method, path, body)

  /** The ledger row of a payment session, as the admin API shows it. */
  const ledgerRow = async (sessionId) =>
    (await adminGet(`/admin/payin/transactions?q=${encodeURIComponent(sessionId)}`)).transactions.find((t) => t.session_id === sessionId) ?? null

  /** Polls the ledger row until `ok(row)`. */
  const waitRow = (c, what, ok) =>
    waitFor(`pay-in ${c.payinId} to be ${what}`, async () => {
      const row = await ledgerRow(c.sessionId)
      return row && ok(row) ? row : null
    })
  const waitStatus = (c, status) => waitRow(c, status, (row) => row.status === status)
  const action = (c, name, body) => sandbox("POST", `/_sandbox/transactions/${c.payinId}/${name}`, body)

  /** Polls the order until its payment_status is `status` (what Medusa shows, not the ledger). */
  const waitOrder = (orderId, paymentStatus) =>
    waitFor(`order ${orderId} to be ${paymentStatus}`, async () => {
      const { order } = await adminGet(`/admin/orders/${orderId}?fields=status,payment_status`)
      return order.payment_status === paymentStatus ? order : null
    })

  /** The shopper's email of each cart (the notifications' `to`). */
  const emails = new Map()
  /** The templates of the notifications of a sample's order, oldest first. */
  const notificationsOf = async (c) => {
    const email = emails.get(c.cartId)
    if (!notifications || !c.orderId || !email) return []
    const rows = await fetchNotifications(backendUrl, adminHeaders, { to: email })
    return rows
      .filter((n) => n.resource_id === c.orderId)
      .sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)))
      .map((n) => n.template)
  }
  /** With notifications on: waits until the order got its `payin.<kind>` notification (created by a subscriber, asynchronously). */
  const notified = async (c, kind) => {
    if (!notifications) return
    await waitFor(`the payin.${kind} notification of order ${c.orderId}`, async () =>
      (await notificationsOf(c)).includes(`payin.${kind}`)
    )
  }

  /** A cart with one product, addresses and shipping (same as the specs' Storefront.cart). */
  const cart = async (name) => {
    const address = {
      first_name: "Анна",
      last_name: "Смирнова",
      address_1: "Тверская ул., 1",
      city: "Москва",
      postal_code: "101000",
      country_code: COUNTRY,
    }
    // one guest per cart: Medusa races on creating the same guest customer concurrently
    const email = `${name}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@shopper.demo`
    const { cart } = await storeCall("POST", "/store/carts", {
      region_id: seed.regionId,
      email,
      items: [{ variant_id: seed.productVariantId, quantity: 1 }],
      shipping_address: address,
      billing_address: address,
    })
    emails.set(cart.id, email)
    await storeCall("POST", `/store/carts/${cart.id}/shipping-methods`, { option_id: seed.shippingOptionId })
    return cart.id
  }

  /** A pay-in session for the cart (the payment collection is created or reused). */
  const session = async (cartId, method) => {
    const { payment_collection } = await storeCall("POST", "/store/payment-collections", { cart_id: cartId })
    const created = await storeCall("POST", `/store/payment-collections/${payment_collection.id}/payment-sessions`, {
      provider_id: PROVIDER_ID,
      ...(method ? { data: { method } } : {}),
    })
    const s = created.payment_collection.payment_sessions.find((x) => x.provider_id === PROVIDER_ID)
    if (!s?.data?.payin_id) {
      throw new Error(`no pay-in session on cart ${cartId}: ${JSON.stringify(s ?? created).slice(0, 200)}`)
    }
    return { cartId, sessionId: s.id, payinId: s.data.payin_id }
  }

  /** Cart → pay-in session → order placed awaiting the transfer. */
  const checkout = async (name, { method } = {}) => {
    const c = await session(await cart(name), method)
    const completed = await storeCall("POST", `/store/carts/${c.cartId}/complete`, {})
    if (completed.type !== "order") {
      throw new Error(`cart ${c.cartId} did not become an order: ${JSON.stringify(completed.error ?? completed).slice(0, 200)}`)
    }
    const placed = { ...c, orderId: completed.order.id }
    await notified(placed, "instructions") // before anything else happens to the pay-in
    return placed
  }

  const result = async (c, row) => ({
    orderId: c.orderId ?? null,
    cartId: c.cartId,
    payinId: c.payinId,
    ledgerId: row.id,
    status: row.status,
    flags: Object.keys(row.flags ?? {}),
    notifications: await notificationsOf(c),
  })

  const recipes = {
    paid: async () => {
      const c = await checkout("paid", { method: "card" })
      await action(c, "pay")
      await waitOrder(c.orderId, "captured")
      const row = await waitRow(c, "closed and captured", (row) => row.status === "closed" && row.captured_at)
      await notified(c, "paid")
      return result(c, row)
    },

    awaiting: async () => {
      const c = await checkout("awaiting", { method: "phone_number" })
      return result(c, await waitStatus(c, "active"))
    },

    expired: async () => {
      const c = await checkout("expired")
      await action(c, "expire")
      const row = await waitRow(c, "canceled and ended by the store", (r) => r.status === "canceled" && r.store_canceled_at)
      await waitOrder(c.orderId, "canceled")
      await notified(c, "expired")
      return result(c, row)
    },

    dispute: async () => {
      const c = await checkout("dispute", { method: "card" })
      await action(c, "expire")
      await waitRow(c, "canceled and ended by the store", (r) => r.status === "canceled" && r.store_canceled_at)
      await notified(c, "expired")
      await action(c, "dispute", { fiatAmount: "1700.00" })
      return result(c, await waitStatus(c, "dispute"))
    },

    recalculated: async () => {
      const c = await checkout("recalculated", { method: "card" })
      await action(c, "dispute", { fiatAmount: "1700.00" })
      await waitStatus(c, "dispute")
      await action(c, "checking", { fiatAmount: "1700.00" })
      await waitStatus(c, "checking")
      await action(c, "recalculate", { fiatAmount: "1700.00" })
      await waitStatus(c, "re_calculation")
      await action(c, "close")
      // Medusa books what arrived (1700.00 of 1790.00): partly captured, 90.00 still owed; no
      // "paid" notification for an underpaid order
      await waitOrder(c.orderId, "partially_captured")
      const row = await waitRow(c, "closed and captured", (row) => row.status === "closed" && row.captured_at)
      return result(c, row)
    },

    late: async () => {
      const c = await checkout("late", { method: "card" })
      await action(c, "expire")
      await waitRow(c, "canceled and ended by the store", (r) => r.status === "canceled" && r.store_canceled_at)
      await notified(c, "expired")
      await action(c, "dispute")
      await waitStatus(c, "dispute")
      await action(c, "close")
      return result(c, await waitRow(c, "closed and flagged late_payment", (r) => r.status === "closed" && r.flags?.late_payment))
    },

    stray: async () => {
      const cartId = await cart("stray")
      const old = await session(cartId, "card")
      // the shopper changes the cart: Medusa deletes the session (its amount is stale)…
      await storeCall("POST", `/store/carts/${cartId}/line-items`, { variant_id: seed.productVariantId, quantity: 1 })
      await waitRow(old, "marked deleted", (r) => r.session_deleted_at)
      // …the storefront asks for a new one, and the old requisites are paid anyway
      await session(cartId, "card")
      await action(old, "pay")
      return result(old, await waitRow(old, "closed and flagged stray_payment", (r) => r.status === "closed" && r.flags?.stray_payment))
    },
  }

  const queue = [...SAMPLE_NAMES]
  const worker = async () => {
    for (let name; (name = queue.shift()); ) {
      const started = Date.now()
      try {
        const sample = await recipes[name]()
        samples[name] = sample
        const where = sample.orderId ? `order ${sample.orderId}` : `cart ${sample.cartId}`
        const flags = sample.flags.length ? `, flags ${sample.flags.join(",")}` : ""
        const notified = sample.notifications.length ? `, notified ${sample.notifications.join(", ")}` : ""
        log(`sample "${name}": ${where}, pay-in ${sample.ledgerId} (${sample.status}${flags}${notified}) in ${((Date.now() - started) / 1000).toFixed(1)} s`)
      } catch (error) {
        log(`WARNING: sample "${name}" could not be made: ${describeError(error)}`)
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker))
  // same key order whatever finished first
  return Object.fromEntries(SAMPLE_NAMES.filter((n) => samples[n]).map((n) => [n, samples[n]]))
}
