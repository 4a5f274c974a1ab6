import { parseProviderOptions } from "../../../modules/payin/settings/parse"
import { CLIENT_CONTEXT_KEY, isAllowedRedirect, parseStorefrontData } from "../storefront-data"

const options = parseProviderOptions(
  {
    allowedRedirectOrigins: ["https://shop.example"],
    allowedMethods: ["card", "phone_number"],
    allowedBanks: ["sberbank"],
  },
  {}
)

describe("parseStorefrontData", () => {
  it("takes the allowed keys and ignores Medusa's session_id", () => {
    const parsed = parseStorefrontData(
      { session_id: "payses_1", method: "card", bank: "sberbank", success_url: "https://shop.example/ok", locale: "ru" },
      options
    )
    expect(parsed).toEqual({
      method: "card",
      bank: "sberbank",
      success_url: "https://shop.example/ok",
      locale: "RU",
      client: {},
    })
  })

  it("refuses unknown keys, naming them", () => {
    expect(() => parseStorefrontData({ fee: 1, apiKey: "x" }, options)).toThrow(/Unknown payment data field\(s\): fee, apiKey/)
  })

  it("takes the keys the server writes over the request's (session_id, payin_client) and nothing else", () => {
    const parsed = parseStorefrontData({ method: "card", session_id: "payses_1", payin_client: { ip: "203.0.113.7" } }, options)
    expect(parsed).toEqual({ method: "card", client: { ip: "203.0.113.7" } })
  })

  it.each(["payin_reattach_paid", "payin_ledger_id", "payin_id", "payin_status", "payin_capture_on_authorize", "amount", "requisite", "expires_at", "error_message", "payin_refunds"])(
    "refuses %s, whatever its value (Medusa would store it as sent)",
    (key) => {
      for (const value of ["payintx_1", null, {}]) {
        expect(() => parseStorefrontData({ [key]: value, session_id: "payses_1" }, options)).toThrow(new RegExp(`Unknown payment data field\\(s\\): ${key}`))
      }
    }
  )

  it("leaves out the provider's own keys only when the provider recognised its own copy", () => {
    const copy = { payin_id: "svc_1", payin_ledger_id: "payintx_1", amount: "1790.00", requisite: {}, method: "card" }
    expect(parseStorefrontData(copy, options, { ownCopy: true })).toEqual({ method: "card", client: {} })
    expect(() => parseStorefrontData(copy, options)).toThrow(/Unknown payment data field\(s\): payin_id, payin_ledger_id, amount, requisite/)
    // never a key that is neither the storefront's nor the provider's
    expect(() => parseStorefrontData({ ...copy, apiKey: "x" }, options, { ownCopy: true })).toThrow(/Unknown payment data field\(s\): apiKey/)
  })

  it("refuses methods and banks the merchant does not offer", () => {
    expect(() => parseStorefrontData({ method: "qr" }, options)).toThrow(/not offered/)
    expect(() => parseStorefrontData({ method: "cash" }, options)).toThrow(/method must be one of/)
    expect(() => parseStorefrontData({ bank: "otherbank" }, options)).toThrow(/not offered/)
  })

  it("refuses redirects outside the allowed origins (no open redirect)", () => {
    for (const url of [
      "https://evil.example/ok",
      "https://shop.example.evil.example/ok",
      "https://shop.example@evil.example/ok",
      "javascript:alert(1)",
      "//evil.example",
      "http://shop.example/ok", // other scheme, other origin
    ]) {
      expect(() => parseStorefrontData({ failure_url: url }, options)).toThrow(/allowed redirect origins/)
    }
  })

  it("reads the server-captured client context, never as a storefront field", () => {
    const parsed = parseStorefrontData({ [CLIENT_CONTEXT_KEY]: { ip: "1.2.3.4", user_agent: "UA" } }, options)
    expect(parsed.client).toEqual({ ip: "1.2.3.4", user_agent: "UA" })
  })
})

describe("isAllowedRedirect", () => {
  it("matches exact origins only", () => {
    expect(isAllowedRedirect("https://shop.example/a?b=c", ["https://shop.example"])).toBe(true)
    expect(isAllowedRedirect("https://shop.example:8443/a", ["https://shop.example"])).toBe(false)
    expect(isAllowedRedirect("not a url", ["https://shop.example"])).toBe(false)
    expect(isAllowedRedirect("https://shop.example/a", [])).toBe(false)
  })
})
