// A storefront, as plain store-API calls (what @medusajs/js-sdk sends), for the checkout specs.
import type { MedusaContainer } from "@medusajs/framework/types"
import { createApiKeysWorkflow, createSalesChannelsWorkflow, linkSalesChannelsToApiKeyWorkflow } from "@medusajs/medusa/core-flows"
import type { RunningSandbox } from "../../src/sandbox"
import type { PayinStatusResponse } from "../../src/storefront/types"
import { DEMO, DemoSeedResult } from "../app/seed/demo-store"
import { payinsOfSession } from "./sandbox"

type Api = {
  get: (url: string, config?: unknown) => Promise<{ status: number; data: any }>
  post: (url: string, body?: unknown, config?: unknown) => Promise<{ status: number; data: any }>
}

/** Wraps the API so a refused request fails with the server's message, not only its status. */
function explained(api: Api): Api {
  const explain = (error: any, method: string, url: string) => {
    if (error?.response) {
      const explainedError = new Error(`${method} ${url}: ${error.response.status} ${JSON.stringify(error.response.data)}`)
      Object.assign(explainedError, { response: error.response })
      throw explainedError
    }
    throw error
  }
  return {
    get: (url, config) => api.get(url, config).catch((e) => explain(e, "GET", url)),
    post: (url, body, config) => api.post(url, body, config).catch((e) => explain(e, "POST", url)),
  }
}

export class Storefront {
  readonly headers: { headers: Record<string, string> }
  private readonly api: Api

  constructor(
    api: Api,
    readonly seed: DemoSeedResult,
    userAgent = "PayinTestBrowser/1.0"
  ) {
    this.api = explained(api)
    this.headers = { headers: { "x-publishable-api-key": seed.publishableKey, "user-agent": userAgent } }
  }

  /** A cart with one product, addresses and shipping, ready for payment. */
  async cart(quantity = 1): Promise<string> {
    const address = {
      first_name: "Ivan",
      last_name: "Petrov",
      address_1: "Tverskaya 1",
      city: "Moscow",
      postal_code: "101000",
      country_code: DEMO.country,
    }
    const { data } = await this.api.post(
      "/store/carts",
      {
        region_id: this.seed.regionId,
        // one guest per cart: Medusa races on creating the same guest customer concurrently
        email: `shopper-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@payin.test`,
        items: [{ variant_id: this.seed.productVariantId, quantity }],
        shipping_address: address,
        billing_address: address,
      },
      this.headers
    )
    const cartId = data.cart.id
    await this.api.post(`/store/carts/${cartId}/shipping-methods`, { option_id: this.seed.shippingOptionId }, this.headers)
    return cartId
  }

  async addItem(cartId: string): Promise<void> {
    await this.api.post(`/store/carts/${cartId}/line-items`, { variant_id: this.seed.productVariantId, quantity: 1 }, this.headers)
  }

  async paymentCollection(cartId: string): Promise<string> {
    const { data } = await this.api.post("/store/payment-collections", { cart_id: cartId }, this.headers)
    return data.payment_collection.id
  }

  /** Creates the payment session; returns the session as the store API shows it. */
  async session(cartId: string, providerId: string, data?: Record<string, unknown>): Promise<any> {
    const collectionId = await this.paymentCollection(cartId)
    const res = await this.api.post(
      `/store/payment-collections/${collectionId}/payment-sessions`,
      { provider_id: providerId, ...(data ? { data } : {}) },
      this.headers
    )
    return res.data.payment_collection.payment_sessions.find((s: any) => s.provider_id === providerId)
  }

  /** Same, but resolves with the error response instead of throwing. */
  async sessionError(cartId: string, providerId: string, data?: Record<string, unknown>): Promise<{ status: number; data: any }> {
    try {
      await this.session(cartId, providerId, data)
    } catch (error: any) {
      if (error.response) {
        return { status: error.response.status, data: error.response.data }
      }
      throw error
    }
    throw new Error("expected the payment session to be refused")
  }

  async complete(cartId: string): Promise<{ status: number; data: any }> {
    return answered(() => this.api.post(`/store/carts/${cartId}/complete`, {}, this.headers))
  }

  /** GET /store/payin/status?order_id=… (the body). */
  async orderStatus(orderId: string): Promise<PayinStatusResponse> {
    return (await this.api.get(`/store/payin/status?order_id=${orderId}`, this.headers)).data
  }

  /** POST /store/payin/pay-again: its status and body, errors included (`headers`: another publishable key). */
  async payAgain(body: Record<string, unknown>, headers = this.headers.headers): Promise<{ status: number; data: any; headers?: Record<string, string> }> {
    return answered(() => this.api.post("/store/payin/pay-again", body, { headers }))
  }
}

/** An answer's status and body, an HTTP error's too. */
async function answered(
  send: () => Promise<{ status: number; data: any; headers?: any }>
): Promise<{ status: number; data: any; headers?: Record<string, string> }> {
  try {
    const res = await send()
    return { status: res.status, data: res.data, headers: res.headers }
  } catch (error: any) {
    if (error.response) {
      return { status: error.response.status, data: error.response.data, headers: error.response.headers }
    }
    throw error
  }
}

/** The same interface as the test runner's axios client, for another server (a second instance). */
export function httpApi(baseUrl: string): Api {
  const send = async (method: string, url: string, body?: unknown, config?: unknown) => {
    const headers = { ...((config as { headers?: Record<string, string> })?.headers ?? {}) }
    if (body !== undefined) headers["content-type"] = "application/json"
    const res = await fetch(`${baseUrl}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const data = await res.json().catch(() => null)
    if (res.status >= 400) {
      throw Object.assign(new Error(`${method} ${url}: ${res.status} ${JSON.stringify(data)}`), { response: { status: res.status, data } })
    }
    return { status: res.status, data }
  }
  return { get: (url, config) => send("GET", url, undefined, config), post: (url, body, config) => send("POST", url, body, config) }
}

/** A cart with its pay-in session, not completed (`payin`: the pay-in at the service). */
export async function cartWithPayin(shop: Storefront, sandbox: RunningSandbox, providerId = "pp_payin_default", data?: Record<string, unknown>) {
  const cartId = await shop.cart()
  const session = await shop.session(cartId, providerId, data)
  const [payin] = payinsOfSession(sandbox, session.id)
  return { cartId, session, payin }
}

/**
 * A placed order waiting for its payment: cart, pay-in session, completion; resolves once the
 * order.placed subscriber (asynchronous) linked the pay-in to the order on the ledger.
 */
export async function placedOrderAwaitingPayment(
  shop: Storefront,
  sandbox: RunningSandbox,
  ledger: { row(filters: Record<string, unknown>): Promise<any> },
  providerId = "pp_payin_default"
) {
  const { cartId, session, payin } = await cartWithPayin(shop, sandbox, providerId)
  const orderId = (await shop.complete(cartId)).data.order.id as string
  const deadline = Date.now() + 10_000
  while ((await ledger.row({ session_id: session.id }))?.order_id !== orderId) {
    if (Date.now() > deadline) throw new Error(`pay-in of ${session.id} was not linked to order ${orderId}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return { cartId, session, payin, orderId }
}

/** The storefront's headers with a publishable key of another sales channel than the seeded storefront's. */
export async function foreignKeyHeaders(container: MedusaContainer, shop: Storefront): Promise<Record<string, string>> {
  const { result: channels } = await createSalesChannelsWorkflow(container).run({
    input: { salesChannelsData: [{ name: `Other storefront ${Date.now()}` }] },
  })
  const { result: keys } = await createApiKeysWorkflow(container).run({
    input: { api_keys: [{ title: `Other storefront ${Date.now()}`, type: "publishable", created_by: "" }] },
  })
  await linkSalesChannelsToApiKeyWorkflow(container).run({ input: { id: keys[0].id, add: [channels[0].id] } })
  return { ...shop.headers.headers, "x-publishable-api-key": keys[0].token }
}
