import { createPayinStoreClient, PayinStoreApiError } from "../store-client"

const STATUS = { cart_id: "cart_1", order: null, payin: null, server_time: "2025-03-01T12:00:00.000Z" }

function jsonResponse(status: number, body: unknown) {
  return {
    ok: status >= 200 && status < 300,
    status,
    json: async () => {
      if (typeof body === "string") throw new SyntaxError("Unexpected token")
      return body
    },
  } as unknown as Response
}

describe("createPayinStoreClient with fetch", () => {
  it("GETs the status route with the publishable key and the query", async () => {
    const fetch = jest.fn(async () => jsonResponse(200, STATUS))
    const client = createPayinStoreClient({ baseUrl: "https://api.shop.example/", publishableKey: "pk_123", fetch, headers: { authorization: "Bearer t" } })
    await expect(client.status({ order_id: "order_1" })).resolves.toEqual(STATUS)
    expect(fetch).toHaveBeenCalledWith("https://api.shop.example/store/payin/status?order_id=order_1", {
      method: "GET",
      headers: { accept: "application/json", authorization: "Bearer t", "x-publishable-api-key": "pk_123" },
    })
  })

  it("GETs the banks route with the currency or the cart, and the provider", async () => {
    const fetch = jest.fn(async () => jsonResponse(200, { banks: [] }))
    const client = createPayinStoreClient({ baseUrl: "https://api.shop.example", publishableKey: "pk_1", fetch })
    await client.banks({ currency_code: "rub", provider_id: "pp_payin_payin" })
    await client.banks({ cart_id: "cart/1&x=2" })
    expect((fetch.mock.calls as unknown as [string][]).map((c) => c[0])).toEqual([
      "https://api.shop.example/store/payin/banks?currency_code=rub&provider_id=pp_payin_payin",
      "https://api.shop.example/store/payin/banks?cart_id=cart%2F1%26x%3D2",
    ])
  })

  it("rejects a non-2xx answer with a typed error built from Medusa's error body", async () => {
    const body = {
      type: "invalid_data",
      message: "Pass cart_id or order_id",
      code: "payin_invalid_data",
      fields: [{ path: "cart_id", message: "required" }],
    }
    const client = createPayinStoreClient({ baseUrl: "https://x.example", publishableKey: "pk", fetch: async () => jsonResponse(400, body) })
    const error = await client.status({ cart_id: "c" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PayinStoreApiError)
    expect(error).toMatchObject({ name: "PayinStoreApiError", status: 400, ...body })
  })

  it("copes with an error answer that is not JSON", async () => {
    const client = createPayinStoreClient({ baseUrl: "https://x.example", publishableKey: "pk", fetch: async () => jsonResponse(502, "<html>") })
    const error = (await client.status({ cart_id: "c" }).catch((e: unknown) => e)) as PayinStoreApiError
    expect(error).toBeInstanceOf(PayinStoreApiError)
    expect(error.status).toBe(502)
    expect(error.type).toBe("unknown_error")
    expect(error.message).toContain("502")
  })

  it("passes network errors through unchanged", async () => {
    const failure = new TypeError("Failed to fetch")
    const client = createPayinStoreClient({ baseUrl: "https://x.example", publishableKey: "pk", fetch: async () => Promise.reject(failure) })
    await expect(client.status({ cart_id: "c" })).rejects.toBe(failure)
  })
})

describe("createPayinStoreClient made at module scope from an unset variable", () => {
  it("does not throw when created; the first call says what is missing and sends nothing", async () => {
    const fetchMock = jest.fn()
    const env: Record<string, string | undefined> = {}
    const client = createPayinStoreClient({ baseUrl: env.NEXT_PUBLIC_MEDUSA_BACKEND_URL as string, publishableKey: "pk_1", fetch: fetchMock })
    await expect(client.status({ order_id: "order_1" })).rejects.toThrow(/`baseUrl` is missing \(got undefined\).*MEDUSA_BACKEND_URL/)
    const noKey = createPayinStoreClient({ baseUrl: "https://api.shop.test", publishableKey: "", fetch: fetchMock })
    await expect(noKey.banks({ currency_code: "rub" })).rejects.toThrow(/`publishableKey` is missing \(got an empty string\)/)
    expect(fetchMock).not.toHaveBeenCalled()
    expect(() => createPayinStoreClient(undefined as never)).not.toThrow()
  })
})

describe("createPayinStoreClient with a custom request (js-sdk)", () => {
  it("passes the path and the query, leaving out absent values", async () => {
    const request = jest.fn(async () => STATUS)
    const client = createPayinStoreClient({ request })
    await client.status({ cart_id: "cart_1" })
    await client.banks({ cart_id: "cart_1", provider_id: undefined })
    expect(request.mock.calls).toEqual([
      ["/store/payin/status", { cart_id: "cart_1" }],
      ["/store/payin/banks", { cart_id: "cart_1" }],
    ])
  })

  it("turns js-sdk's FetchError (message, statusText, status) into a typed error", async () => {
    const fetchError = Object.assign(new Error("Order not found"), { status: 404, statusText: "Not Found" })
    const client = createPayinStoreClient({ request: async () => Promise.reject(fetchError) })
    const error = (await client.status({ order_id: "o" }).catch((e: unknown) => e)) as PayinStoreApiError
    expect(error).toBeInstanceOf(PayinStoreApiError)
    expect(error).toMatchObject({ status: 404, type: "not_found", message: "Order not found" })
    expect((error as { cause?: unknown }).cause).toBe(fetchError)
  })

  it("rejects an answer that is not an object", async () => {
    const client = createPayinStoreClient({ request: async () => "oops" })
    await expect(client.status({ cart_id: "c" })).rejects.toBeInstanceOf(PayinStoreApiError)
  })

  it("asks for exactly one of cart_id and order_id (and of cart_id and currency_code)", async () => {
    const request = jest.fn(async () => STATUS)
    const client = createPayinStoreClient({ request })
    await expect(client.status({} as never)).rejects.toThrow(TypeError)
    await expect(client.status({ cart_id: "c", order_id: "o" } as never)).rejects.toThrow(TypeError)
    await expect(client.banks({ cart_id: "c", currency_code: "rub" } as never)).rejects.toThrow(TypeError)
    expect(request).not.toHaveBeenCalled()
  })
})

describe("createPayinStoreClient.payAgain", () => {
  const FRESH = { ...STATUS, cart_id: null, pay_again: null }

  it("POSTs the order and the optional fields as JSON with the publishable key", async () => {
    const fetch = jest.fn(async () => jsonResponse(200, FRESH))
    const client = createPayinStoreClient({ baseUrl: "https://api.shop.example/", publishableKey: "pk_123", fetch })
    await expect(client.payAgain({ order_id: "order_1", bank: "sberbank", method: "", locale: undefined })).resolves.toEqual(FRESH)
    expect(fetch).toHaveBeenCalledWith("https://api.shop.example/store/payin/pay-again", {
      method: "POST",
      headers: { accept: "application/json", "x-publishable-api-key": "pk_123", "content-type": "application/json" },
      body: JSON.stringify({ order_id: "order_1", bank: "sberbank" }),
    })
  })

  it("rejects a refusal with its code", async () => {
    const body = { type: "not_allowed", message: "The grace period is over (payin_grace_over)", code: "payin_grace_over" }
    const client = createPayinStoreClient({ baseUrl: "https://x.example", publishableKey: "pk", fetch: async () => jsonResponse(409, body) })
    const error = (await client.payAgain({ order_id: "o" }).catch((e: unknown) => e)) as PayinStoreApiError
    expect(error).toBeInstanceOf(PayinStoreApiError)
    expect(error).toMatchObject({ status: 409, type: "not_allowed", code: "payin_grace_over" })
  })

  it("passes the POST to a custom request and to the js-sdk's client.fetch", async () => {
    const request = jest.fn(async () => FRESH)
    await createPayinStoreClient({ request }).payAgain({ order_id: "order_1", success_url: "https://shop.example/r" })
    expect(request.mock.calls).toEqual([["/store/payin/pay-again", {}, { method: "POST", body: { order_id: "order_1", success_url: "https://shop.example/r" } }]])
    const fetch = jest.fn(async () => FRESH)
    const sdk = { client: { fetch: fetch as never } }
    await createPayinStoreClient({ sdk }).payAgain({ order_id: "order_2" })
    await createPayinStoreClient({ sdk }).status({ order_id: "order_2" })
    expect(fetch.mock.calls).toEqual([
      ["/store/payin/pay-again", { query: {}, method: "POST", body: { order_id: "order_2" } }],
      ["/store/payin/status", { query: { order_id: "order_2" } }],
    ])
  })

  it("asks for the order id and sends nothing without it", async () => {
    const request = jest.fn(async () => FRESH)
    await expect(createPayinStoreClient({ request }).payAgain({} as never)).rejects.toThrow(TypeError)
    expect(request).not.toHaveBeenCalled()
  })
})
