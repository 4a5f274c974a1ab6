import { fromSessionData, isPayinProvider } from "../session"

const NOW = Date.parse("2025-03-01T12:00:00.000Z")
const data = (over: Record<string, unknown> = {}) => ({
  payin_id: "7f3a-tx",
  payin_ledger_id: "pin_01",
  payin_status: "active",
  amount: "1790.00",
  currency: "rub",
  method: "card",
  bank: "sberbank",
  requisite: { bank: "sberbank", owner_name: "Ivan Ivanovich P.", number: "2202201234567890", sbp_number: "+79123456789" },
  crypto_amount: "18.55",
  crypto_currency: "usdt",
  currency_rate: "96.45",
  payment_page_url: "https://pay.service.example/pay/7f3a-tx",
  created_at: "2025-03-01T11:50:00.000Z",
  expires_at: "2025-03-01T12:14:32.000Z",
  ...over,
})

describe("fromSessionData", () => {
  it("builds an awaiting-payment view of an active pay-in", () => {
    expect(fromSessionData(data(), "pp_payin_payin", NOW)).toEqual({
      provider_id: "pp_payin_payin",
      payin_id: "7f3a-tx",
      state: "awaiting_payment",
      service_status: "active",
      final: false,
      amount: "1790.00",
      currency: "RUB",
      paid_amount: null,
      method: "card",
      bank: "sberbank",
      requisite: { bank: "sberbank", owner_name: "Ivan Ivanovich P.", number: "2202201234567890", sbp_number: "+79123456789" },
      payment_page_url: "https://pay.service.example/pay/7f3a-tx",
      created_at: "2025-03-01T11:50:00.000Z",
      expires_at: "2025-03-01T12:14:32.000Z",
      seconds_left: 872,
      paid_at: null,
    })
  })

  it.each([
    ["active", "awaiting_payment"],
    ["closed", "paid"],
    ["canceled", "expired"],
    ["dispute", "in_review"],
    ["checking", "in_review"],
    ["re_calculation", "in_review"],
    ["failed", "failed"],
    ["creating", "pending"],
    [undefined, "pending"],
    // a status this version does not know: the same answer as the store status route
    ["some_new_status", "in_review"],
  ])("maps payin_status %p to %p", (status, state) => {
    expect(fromSessionData(data({ payin_status: status }), "pp_payin_payin", NOW).state).toBe(state)
  })

  it("hides the requisite and page link of a final pay-in", () => {
    const view = fromSessionData(data({ payin_status: "closed" }), "pp_payin_payin", NOW)
    expect(view).toMatchObject({ final: true, requisite: null, payment_page_url: null, seconds_left: 0 })
  })

  it("treats a session the store canceled, or one with an error message, as not payable", () => {
    expect(fromSessionData(data({ payin_canceled: true }), "pp_payin_payin", NOW)).toMatchObject({ state: "canceled", requisite: null })
    expect(fromSessionData(data({ error_message: "The payment window … ended" }), "pp_payin_payin", NOW)).toMatchObject({
      state: "expired",
      final: true,
    })
  })

  it("gives 0 seconds left after the window and copes with missing data", () => {
    expect(fromSessionData(data({ expires_at: "2025-03-01T11:59:00.000Z" }), "pp_payin_payin", NOW).seconds_left).toBe(0)
    expect(fromSessionData(null, "pp_payin_payin", NOW)).toMatchObject({
      state: "pending",
      payin_id: null,
      requisite: null,
      expires_at: null,
      seconds_left: 0,
      amount: "",
    })
  })
})

describe("isPayinProvider", () => {
  it("recognises pp_payin_ ids only", () => {
    expect(isPayinProvider("pp_payin_payin")).toBe(true)
    expect(isPayinProvider("pp_payin_eu")).toBe(true)
    expect(isPayinProvider("pp_system_default")).toBe(false)
    expect(isPayinProvider("pp_payinx")).toBe(false)
    expect(isPayinProvider(null)).toBe(false)
  })
})
