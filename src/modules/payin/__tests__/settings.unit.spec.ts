import { parseProviderOptions } from "../../../../medusa-plugin.config"
import { SettingsValidationError, applyProviderPatch, mergeProviderOptions, providerSources } from "../settings"

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
