import { isAllowedBaseUrl, isLoopbackHost } from "../options"
import { PayinConfigError, allowsPrivateBaseUrl, parseProviderOptions } from "../parse"

describe("base URL: https, plain http only to this machine", () => {
  it("allows plain http only for localhost, 127.0.0.0/8 and [::1]", () => {
    for (const url of ["http://localhost:4010", "http://127.0.0.1:4010", "http://127.9.8.7/x", "http://[::1]:4010", "https://pay.example.com"]) {
      expect([url, isAllowedBaseUrl(url)]).toEqual([url, true])
    }
    // *.localhost names are not loopback literals: a resolver may send them anywhere (review finding 3)
    for (const url of ["http://foo.localhost", "http://foo.localhost:4010", "http://a.b.localhost/x", "http://localhost.evil.com", "http://[::ffff:7f00:1]/", "http://pay.example.com"]) {
      expect([url, isAllowedBaseUrl(url)]).toEqual([url, false])
    }
    expect(isLoopbackHost("foo.localhost")).toBe(false)
    expect(isLoopbackHost("[::1]")).toBe(true)
    expect(() => parseProviderOptions({ baseUrl: "http://foo.localhost:4010" }, {})).toThrow(PayinConfigError)
  })
})

describe("allowPrivateBaseUrl", () => {
  it("is taken from medusa-config, else PAYIN_<ID>_ALLOW_PRIVATE_BASE_URL / PAYIN_ALLOW_PRIVATE_BASE_URL", () => {
    expect(parseProviderOptions({}, {}).allowPrivateBaseUrl).toBeUndefined()
    expect(parseProviderOptions({ allowPrivateBaseUrl: true }, {}).allowPrivateBaseUrl).toBe(true)
    expect(parseProviderOptions({}, { PAYIN_ALLOW_PRIVATE_BASE_URL: "false" }).allowPrivateBaseUrl).toBe(false)
    expect(parseProviderOptions({ id: "eu" }, { PAYIN_ALLOW_PRIVATE_BASE_URL: "false", PAYIN_EU_ALLOW_PRIVATE_BASE_URL: "true" }).allowPrivateBaseUrl).toBe(true)
    expect(() => parseProviderOptions({}, { PAYIN_ALLOW_PRIVATE_BASE_URL: "maybe" })).toThrow(/allowPrivateBaseUrl must be true or false/)
  })

  it("when unset, follows NODE_ENV: only development and test instances may reach private addresses", () => {
    expect(allowsPrivateBaseUrl({}, { NODE_ENV: "development" })).toBe(true)
    expect(allowsPrivateBaseUrl({}, { NODE_ENV: "test" })).toBe(true)
    expect(allowsPrivateBaseUrl({}, { NODE_ENV: "production" })).toBe(false)
    expect(allowsPrivateBaseUrl({}, {})).toBe(false)
    expect(allowsPrivateBaseUrl({ allowPrivateBaseUrl: false }, { NODE_ENV: "development" })).toBe(false)
    expect(allowsPrivateBaseUrl({ allowPrivateBaseUrl: true }, { NODE_ENV: "production" })).toBe(true)
  })
})
