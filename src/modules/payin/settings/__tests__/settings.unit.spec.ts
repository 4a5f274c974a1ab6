import { parseProviderOptions } from "../parse"
import {
  API_KEY_ORIGIN,
  PROVIDER_SETTING_FIELDS,
  SettingsValidationError,
  applyProviderPatch,
  mergeProviderOptions,
  originOf,
  providerSettingsPatchSchema,
  providerSources,
  splitProviderValues,
} from "../overrides"

const config = parseProviderOptions(
  { id: "default", apiKey: "config-key-123456", baseUrl: "https://pay.example.com", paymentPage: { failureUrl: "https://shop.example.com/fail" } },
  {}
)

describe("admin settings over medusa-config", () => {
  it("keeps only the admin's fields, normalised, and merges them over the config", () => {
    const overrides = applyProviderPatch(config, {}, {
      paymentPage: { successUrl: "https://shop.example.com/ok", locale: "ru" },
      allowedRedirectOrigins: ["https://shop.example.com/"],
    })
    expect(overrides).toEqual({
      paymentPage: { successUrl: "https://shop.example.com/ok", locale: "RU" },
      allowedRedirectOrigins: ["https://shop.example.com"],
    })
    const merged = mergeProviderOptions(config, overrides, "admin-key-123456")
    expect(merged.paymentPage).toEqual({
      failureUrl: "https://shop.example.com/fail",
      successUrl: "https://shop.example.com/ok",
      locale: "RU",
    })
    expect(merged.apiKey).toBe("admin-key-123456")
    expect(merged.baseUrl).toBe("https://pay.example.com")
  })

  it("null removes an override; an empty URL counts as null", () => {
    const current = applyProviderPatch(config, {}, { manualRefunds: true, paymentPage: { successUrl: "https://a.example.com/x" } })
    const next = applyProviderPatch(config, current, { manualRefunds: null, paymentPage: { successUrl: "" } as never })
    expect(next).toEqual({})
  })

  it("names the invalid field and does not change the stored overrides", () => {
    const current = { manualRefunds: true }
    try {
      applyProviderPatch(config, current, { amountPolicy: { mode: "range", tolerancePercent: 40 } })
      throw new Error("expected a validation error")
    } catch (error) {
      expect(error).toBeInstanceOf(SettingsValidationError)
      expect((error as SettingsValidationError).fields.map((f) => f.path)).toEqual(["amountPolicy.tolerancePercent"])
    }
    expect(current).toEqual({ manualRefunds: true })
  })

  it("tells where each value comes from", () => {
    const sources = providerSources(
      { paymentPage: { successUrl: "https://a.example.com/x" }, manualRefunds: true },
      { baseUrl: "env", "paymentPage.failureUrl": "config", manualRefunds: "default", timeoutMs: "default" },
      "admin"
    )
    expect(sources).toMatchObject({
      apiKey: "admin",
      baseUrl: "env",
      manualRefunds: "admin",
      timeoutMs: "default",
      paymentPage: "admin",
      "paymentPage.successUrl": "admin",
      "paymentPage.failureUrl": "config",
    })
  })
})

describe("what the admin cannot change (security review)", () => {
  it("allowPrivateBaseUrl is medusa-config's only: not a patch field, ignored in stored values", () => {
    expect(PROVIDER_SETTING_FIELDS).not.toContain("allowPrivateBaseUrl")
    expect(providerSettingsPatchSchema.safeParse({ allowPrivateBaseUrl: true }).success).toBe(false)
    const strict = parseProviderOptions({ baseUrl: "https://pay.example.com", allowPrivateBaseUrl: false }, {})
    const { overrides } = splitProviderValues({ allowPrivateBaseUrl: true, id: "other", manualRefunds: true })
    expect(overrides).toEqual({ manualRefunds: true })
    expect(mergeProviderOptions(strict, { allowPrivateBaseUrl: true, id: "other" } as never, undefined)).toMatchObject({
      id: "default",
      allowPrivateBaseUrl: false,
    })
  })

  it("keeps the origin a stored key is bound to apart from the overrides", () => {
    expect(splitProviderValues({ baseUrl: "https://a.example.com/x", [API_KEY_ORIGIN]: "https://a.example.com" })).toEqual({
      overrides: { baseUrl: "https://a.example.com/x" },
      keyOrigin: "https://a.example.com",
    })
    expect(splitProviderValues({ [API_KEY_ORIGIN]: null }).keyOrigin).toBeNull()
    expect(splitProviderValues({}).keyOrigin).toBeUndefined() // saved before keys were bound
    expect(originOf("https://PAY.example.com:443/v1/")).toBe("https://pay.example.com")
    expect(originOf(undefined)).toBeNull()
  })
})

