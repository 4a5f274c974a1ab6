import { parseProviderOptions } from "../../modules/payin/settings/parse"
import { applyProviderPatch, providerSources, SettingsValidationError } from "../../modules/payin/settings/overrides"
import { notificationData, notificationKey, orderCountry, orderStatusUrl, templateOf } from "../data"
import { fillOrderStatusUrl, orderStatusUrlTemplateError } from "../../modules/payin/settings/order-status-url"

describe("order status URL template", () => {
  it("accepts http(s) URLs with the known placeholders", () => {
    for (const template of [
      "https://shop.example.com/{country_code}/order/{order_id}/confirmed",
      "http://localhost:8000/order/{order_id}?n={display_id}&cart={cart_id}",
      "https://shop.example.com/account/orders",
    ]) {
      expect(orderStatusUrlTemplateError(template)).toBeNull()
    }
  })

  it("refuses unknown placeholders, stray braces, other schemes, credentials and relative URLs", () => {
    expect(orderStatusUrlTemplateError("https://shop.example.com/order/{id}")).toBe(
      "may only use the placeholders {order_id}, {display_id}, {cart_id}, {country_code}"
    )
    expect(orderStatusUrlTemplateError("https://shop.example.com/order/{order_id")).toMatch(/unmatched brace/)
    expect(orderStatusUrlTemplateError("https://shop.example.com/order/order_id}")).toMatch(/unmatched brace/)
    expect(orderStatusUrlTemplateError("ftp://shop.example.com/{order_id}")).toMatch(/http\(s\) URL/)
    expect(orderStatusUrlTemplateError("javascript:alert({order_id})")).toMatch(/http\(s\) URL/)
    expect(orderStatusUrlTemplateError("/order/{order_id}")).toMatch(/http\(s\) URL/)
    expect(orderStatusUrlTemplateError("https://user:pw@shop.example.com/{order_id}")).toMatch(/credentials/)
    expect(orderStatusUrlTemplateError(`https://shop.example.com/${"a".repeat(2100)}`)).toMatch(/at most 2048/)
  })

  it("fills every placeholder URL-encoded, and gives null when a value it uses is missing", () => {
    const template = "https://shop.example.com/{country_code}/order/{order_id}?n={display_id}&c={cart_id}"
    expect(fillOrderStatusUrl(template, { order_id: "order_1", display_id: 42, cart_id: "cart_1", country_code: "ru" })).toBe(
      "https://shop.example.com/ru/order/order_1?n=42&c=cart_1"
    )
    expect(fillOrderStatusUrl("https://s.example/{order_id}/{cart_id}", { order_id: "a/b?c&d", cart_id: "é #" })).toBe(
      "https://s.example/a%2Fb%3Fc%26d/%C3%A9%20%23"
    )
    expect(fillOrderStatusUrl(template, { order_id: "order_1", display_id: 42, cart_id: "cart_1", country_code: null })).toBeNull()
    expect(fillOrderStatusUrl("https://s.example/orders", {})).toBe("https://s.example/orders")
  })
})

describe("notification options and settings", () => {
  const config = parseProviderOptions({ id: "default", apiKey: "config-key-123456", baseUrl: "https://pay.example.com" }, {})

  it("are off by default, with the default channel and templates", () => {
    expect(config.notifications).toEqual({
      enabled: false,
      channel: "email",
      instructionsTemplate: "payin.instructions",
      paidTemplate: "payin.paid",
      expiredTemplate: "payin.expired",
    })
  })

  it("medusa-config may set them; a bad value names the field", () => {
    const options = parseProviderOptions({ notifications: { enabled: true, orderStatusUrl: "https://s.example/{order_id}" } }, {})
    expect(options.notifications).toMatchObject({ enabled: true, channel: "email", orderStatusUrl: "https://s.example/{order_id}" })
    expect(() => parseProviderOptions({ notifications: { orderStatusUrl: "https://s.example/{oops}" } }, {})).toThrow(
      /notifications\.orderStatusUrl: notifications\.orderStatusUrl may only use the placeholders \{order_id\}/
    )
    expect(() => parseProviderOptions({ notifications: { channel: "" } } as never, {})).toThrow(/notifications\.channel/)
    expect(() => parseProviderOptions({ notifications: { to: "x" } } as never, {})).toThrow(/unknown option\(s\) "to"/)
  })

  it("the admin sets and resets them field by field, each with its source", () => {
    const current = applyProviderPatch(config, {}, { notifications: { enabled: true, paidTemplate: "order-paid" } })
    expect(current).toEqual({ notifications: { enabled: true, paidTemplate: "order-paid" } })
    const sources = providerSources(current, { "notifications.channel": "config" }, null)
    expect(sources).toMatchObject({
      notifications: "admin",
      "notifications.enabled": "admin",
      "notifications.paidTemplate": "admin",
      "notifications.channel": "config",
      "notifications.expiredTemplate": "config",
    })
    const next = applyProviderPatch(config, current, { notifications: { paidTemplate: null } })
    expect(next).toEqual({ notifications: { enabled: true } })
    expect(applyProviderPatch(config, next, { notifications: null })).toEqual({})
    expect(() => applyProviderPatch(config, {}, { notifications: { orderStatusUrl: "https://s.example/{x}" } })).toThrow(
      SettingsValidationError
    )
  })
})

describe("notification data", () => {
  const order = {
    id: "order_1",
    display_id: 7,
    email: "anna@example.com",
    status: "pending",
    cart_id: "cart_1",
    shipping_address: { country_code: "RU" },
    billing_address: { country_code: "de" },
  }
  const payin = {
    provider_id: "pp_payin_default",
    service_id: "11111111-2222-3333-4444-555555555555",
    amount: "1790",
    raw_amount: { value: "1790" },
    currency_code: "rub",
    fiat_amount: "1790.00",
    assigned_amount: "1790.00",
    fiat_currency: "RUB",
    method: "qr",
    bank: "sberbank",
    requisite: {
      bank: "sberbank",
      ownerName: "Иван П.",
      requisites: "https://qr.nspk.ru/AS1234",
      sbpNumber: "+79001234567",
      fiatCurrency: "RUB",
    },
    payment_page_url: "https://pay.example.com/page/1",
    expires_at: new Date("2026-01-01T10:15:00Z"),
    paid_at: null,
  }
  const settings = { orderStatusUrl: "https://shop.example.com/{country_code}/order/{order_id}" }

  it("instructions carry the amount, requisites, SBP and Payment Page links and the status URL", () => {
    expect(notificationData("instructions", order, payin, settings)).toEqual({
      kind: "instructions",
      order_id: "order_1",
      display_id: 7,
      email: "anna@example.com",
      amount: "1790.00",
      currency: "RUB",
      paid_amount: null,
      method: "qr",
      bank: "sberbank",
      requisite_number: "https://qr.nspk.ru/AS1234",
      owner_name: "Иван П.",
      sbp_number: "+79001234567",
      sbp_link: "https://qr.nspk.ru/AS1234",
      payment_page_url: "https://pay.example.com/page/1",
      expires_at: "2026-01-01T10:15:00.000Z",
      paid_at: null,
      order_status_url: "https://shop.example.com/ru/order/order_1",
      order_canceled: false,
      pay_again_until: null,
      provider_id: "pp_payin_default",
      payin_id: "11111111-2222-3333-4444-555555555555",
    })
  })

  it("paid and expired leave the requisites and links out; paid gives what was received", () => {
    const paid = notificationData("paid", order, { ...payin, fiat_amount: "1700", paid_at: "2026-01-01T10:05:00Z" }, settings)
    expect(paid).toMatchObject({
      kind: "paid",
      amount: "1790.00",
      paid_amount: "1700.00",
      paid_at: "2026-01-01T10:05:00.000Z",
      requisite_number: null,
      owner_name: null,
      sbp_number: null,
      sbp_link: null,
      payment_page_url: null,
      bank: "sberbank",
    })
    const expired = notificationData("expired", { ...order, status: "canceled" }, payin, {})
    expect(expired).toMatchObject({ kind: "expired", order_canceled: true, requisite_number: null, sbp_link: null, order_status_url: null })
    expect(Object.keys(expired).sort()).toEqual(Object.keys(paid).sort())
    // pay again: an order that waits carries until when its shopper may get new details; a canceled one does not
    const waiting = { ...payin, pay_again_until: "2026-01-02T10:15:00Z" }
    expect(notificationData("expired", order, waiting, settings)).toMatchObject({
      order_canceled: false,
      pay_again_until: "2026-01-02T10:15:00.000Z",
      order_status_url: "https://shop.example.com/ru/order/order_1",
    })
    expect(notificationData("expired", { ...order, status: "canceled" }, waiting, settings).pay_again_until).toBeNull()
    expect(notificationData("paid", order, waiting, settings).pay_again_until).toBeNull()
  })

  it("a card requisite has no SBP link; an unsafe Payment Page link is left out; amounts stay exact", () => {
    const data = notificationData(
      "instructions",
      order,
      { ...payin, method: "card", assigned_amount: null, fiat_amount: "0.10", requisite: { ...payin.requisite, requisites: "2200123412341234", sbpNumber: null }, payment_page_url: "javascript:alert(1)" },
      settings
    )
    expect(data).toMatchObject({ amount: "0.10", requisite_number: "2200123412341234", sbp_number: null, sbp_link: null, payment_page_url: null })
  })

  it("the country comes from the shipping address, else the billing address", () => {
    expect(orderCountry(order)).toBe("ru")
    expect(orderCountry({ ...order, shipping_address: null })).toBe("de")
    expect(orderCountry({ id: "o" })).toBeNull()
    expect(orderStatusUrl("https://s.example/{country_code}/{order_id}", { id: "o" })).toBeNull()
    expect(orderStatusUrl(undefined, order)).toBeNull()
  })

  it("keys and templates per kind", () => {
    expect(notificationKey("paid", "order_1")).toBe("payin:paid:order_1")
    const s = { enabled: true, channel: "email", instructionsTemplate: "i", paidTemplate: "p", expiredTemplate: "e" }
    expect([templateOf("instructions", s), templateOf("paid", s), templateOf("expired", s)]).toEqual(["i", "p", "e"])
  })
})
