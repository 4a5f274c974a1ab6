import fc from "fast-check"
import { allowedAttributes } from "../attributes"
import { ATTRIBUTES } from "../names"

const NAMES = Object.keys(ATTRIBUTES)

describe("the attribute allow-list", () => {
  it("keeps listed attributes whose values their rule accepts", () => {
    const accepted = {
      "payin.provider_id": "pp_payin_default",
      "payin.id": "payintx_01JABCDEFGHJKMNPQRSTVWXYZ0",
      "payin.source": "webhook",
      "payin.webhook.outcome": "stored",
      "payin.status.from": "active",
      "payin.status.to": "closed",
      "payin.status.changed": true,
      "payin.service.retries": 2,
      "http.response.status_code": 200,
      "error.type": "PayinServiceError",
    } as const
    expect(allowedAttributes(accepted)).toEqual(accepted)
  })

  it("drops any other name, whatever its value", () => {
    expect(
      allowedAttributes({
        "x-api-key": "test-key-default-0123456789",
        "http.request.header.x-signature": "a".repeat(64),
        "user_agent.original": "PayinTestBrowser/1.0",
        "client.address": "127.0.0.1",
        "payin.requisite": "4276123412341234",
        "payin.email": "shopper@payin.test",
        "error.message": "boom",
        toString: "x",
      })
    ).toEqual({})
  })

  it.each([
    ["payin.id", "shopper@payin.test"],
    ["payin.id", "payintx_01J../../etc"],
    ["payin.provider_id", "pp_payin_127.0.0.1"],
    ["payin.provider_id", "pp_system_default"],
    ["payin.source", "anything"],
    ["payin.webhook.outcome", "signature_ok"],
    ["payin.status.to", "paid"],
    ["payin.notification.trigger", "test"],
    ["payin.service.retries", -1],
    ["payin.service.retries", 1.5],
    ["http.response.status_code", "200"],
    ["payin.status.changed", "true"],
    ["error.type", "Error: key test-key-default-0123456789 refused"],
    ["error.type", "4276123412341234"],
  ])("drops %s = %j (not a value its rule accepts)", (name, value) => {
    expect(allowedAttributes({ [name]: value })).toEqual({})
  })

  it("gives metrics no ids (each value would be a time series of its own)", () => {
    expect(
      allowedAttributes({ "payin.id": "payintx_01JABCDEFGHJKMNPQRSTVWXYZ0", "payin.service.retries": 1, "payin.effect": "capture", "payin.effect.outcome": "done" }, "metric")
    ).toEqual({ "payin.effect": "capture", "payin.effect.outcome": "done" })
  })

  it("lets no e-mail, address, URL, phone or card number through, under any name", () => {
    const shopperish = fc.oneof(
      fc.emailAddress(),
      fc.ipV4(),
      fc.ipV6(),
      fc.webUrl(),
      fc.stringMatching(/^\+?[0-9]{4,19}$/),
      fc.string().map((s) => `${s}@${s}.ru`),
      fc.string().map((s) => `payintx_${s} ${s}`)
    )
    fc.assert(
      fc.property(shopperish, (value) => {
        const all = Object.fromEntries(NAMES.map((name) => [name, value]))
        expect(allowedAttributes(all)).toEqual({})
      })
    )
  })
})
