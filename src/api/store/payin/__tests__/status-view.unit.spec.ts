import { FINAL_SHOPPER_STATES } from "../../../../storefront/types"
import { decimal2 } from "../../../../money"
import { StatusRow, payinState, secondsLeft, toStatusView } from "../status-view"

const NOW = new Date("2025-01-01T12:00:00.000Z")

const requisite = { id: "r1", bank: "sberbank", ownerName: "Ivan Ivanovich P.", requisites: "2202201234567890", sbpNumber: "+79001234567", fiatCurrency: "RUB" }

function row(patch: Partial<StatusRow> & Record<string, unknown> = {}): StatusRow {
  return {
    provider_id: "pp_payin_default",
    service_id: "6f1c2d3e-0000-4000-8000-000000000001",
    status: "active",
    amount: 1790,
    raw_amount: { value: "1790.00" },
    currency_code: "rub",
    fiat_amount: "1790.00",
    fiat_currency: "RUB",
    method: "card",
    bank: "sberbank",
    requisite,
    payment_page_url: "http://sandbox/pay/1",
    expires_at: new Date(NOW.getTime() + 600_500),
    created_at: new Date(NOW.getTime() - 300_000),
    status_changed_at: new Date(NOW.getTime() - 300_000),
    session_deleted_at: null,
    store_canceled_at: null,
    recalculated_at: null,
    // what must never leave the server
    service_data: { merchantFee: "1.23", cryptoAmount: "18560000", extra: { payerInfo: { ip: "10.0.0.1" } } },
    flags: { late_payment: { at: "x" } },
    ...patch,
  } as StatusRow
}

describe("payinState", () => {
  it.each([
    ["creating", "pending"],
    ["active", "awaiting_payment"],
    ["closed", "paid"],
    ["dispute", "in_review"],
    ["checking", "in_review"],
    ["re_calculation", "in_review"],
    ["canceled", "expired"],
    ["failed", "failed"],
  ])("maps %s to %s", (status, state) => {
    expect(payinState({ status, store_canceled_at: null, session_deleted_at: null })).toBe(state)
  })

  it("answers canceled for an open pay-in the store ended or whose session Medusa deleted", () => {
    expect(payinState({ status: "active", store_canceled_at: NOW, session_deleted_at: null })).toBe("canceled")
    expect(payinState({ status: "active", store_canceled_at: null, session_deleted_at: NOW })).toBe("canceled")
    expect(payinState({ status: "creating", store_canceled_at: null, session_deleted_at: NOW })).toBe("canceled")
    // the money arrived or is under review: that is what the shopper must know
    expect(payinState({ status: "closed", store_canceled_at: NOW, session_deleted_at: null })).toBe("paid")
    expect(payinState({ status: "dispute", store_canceled_at: NOW, session_deleted_at: null })).toBe("in_review")
    expect(payinState({ status: "canceled", store_canceled_at: NOW, session_deleted_at: null })).toBe("expired")
  })
})

describe("toStatusView", () => {
  it("shows an open pay-in with its requisite, Payment Page and countdown", () => {
    const view = toStatusView(row(), { now: NOW })
    expect(view).toEqual({
      provider_id: "pp_payin_default",
      payin_id: "6f1c2d3e-0000-4000-8000-000000000001",
      state: "awaiting_payment",
      service_status: "active",
      final: false,
      amount: "1790.00",
      currency: "RUB",
      paid_amount: null,
      method: "card",
      bank: "sberbank",
      requisite: { bank: "sberbank", owner_name: "Ivan Ivanovich P.", number: "2202201234567890", sbp_number: "+79001234567" },
      payment_page_url: "http://sandbox/pay/1",
      created_at: "2025-01-01T11:55:00.000Z",
      expires_at: "2025-01-01T12:10:00.500Z",
      seconds_left: 600,
      paid_at: null,
    })
  })

  it("never carries the service's data, fees, crypto amounts, flags or payer info", () => {
    const json = JSON.stringify(toStatusView(row(), { now: NOW }))
    for (const secret of ["merchantFee", "1.23", "cryptoAmount", "18560000", "payerInfo", "10.0.0.1", "late_payment", "flags", "service_data"]) {
      expect(json).not.toContain(secret)
    }
  })

  it.each(["closed", "canceled", "failed"])("hides the requisite and Payment Page once %s", (status) => {
    const view = toStatusView(row({ status }), { now: NOW })
    expect(view.final).toBe(true)
    expect(view.requisite).toBeNull()
    expect(view.payment_page_url).toBeNull()
    expect(view.seconds_left).toBe(0)
  })

  it("hides the requisite of a pay-in the store ended, while the service still holds it open", () => {
    for (const patch of [{ store_canceled_at: NOW }, { session_deleted_at: NOW }]) {
      const view = toStatusView(row(patch), { now: NOW })
      expect(view).toMatchObject({ state: "canceled", final: true, requisite: null, payment_page_url: null, seconds_left: 0 })
    }
  })

  it("keeps the requisite while in review (the shopper may need to show the transfer)", () => {
    const view = toStatusView(row({ status: "dispute" }), { now: NOW })
    expect(view).toMatchObject({ state: "in_review", final: false, seconds_left: 0 })
    expect(view.requisite?.number).toBe("2202201234567890")
  })

  it("is final only once the store has done what the state asks for the order, or flagged it for the merchant", () => {
    const closed = { status: "closed", paid_at: NOW }
    // paid, Medusa's capture not done yet: the order's payment status will still change
    expect(toStatusView(row({ ...closed, effect_pending: "capture", effect_attempts: 0 }), { now: NOW, effectRetryLimit: 5 })).toMatchObject({
      state: "paid",
      final: false,
    })
    expect(toStatusView(row({ ...closed, effect_pending: null, effect_attempts: 0 }), { now: NOW, effectRetryLimit: 5 }).final).toBe(true)
    // flagged capture_failed after effectRetryLimit attempts: the shopper stops waiting (the job still retries it, hourly at most)
    expect(toStatusView(row({ ...closed, effect_pending: "capture", effect_attempts: 5 }), { now: NOW, effectRetryLimit: 5 }).final).toBe(true)
    // expired, its order's cancel pending
    expect(toStatusView(row({ status: "canceled", effect_pending: "cancel_order", effect_attempts: 1 }), { now: NOW, effectRetryLimit: 5 })).toMatchObject({
      state: "expired",
      final: false,
    })
    // pay again: the cancel waits for the grace period: nothing changes until the shopper acts (final), then it is due again
    const waiting = { status: "canceled", effect_pending: "cancel_order", effect_attempts: 0, pay_again_until: new Date(NOW.getTime() + 3_600_000) }
    expect(toStatusView(row(waiting), { now: NOW, effectRetryLimit: 5 })).toMatchObject({ state: "expired", final: true })
    expect(toStatusView(row({ ...waiting, pay_again_until: new Date(NOW.getTime() - 1) }), { now: NOW, effectRetryLimit: 5 }).final).toBe(false)
  })

  it("dates paid_at from the move to closed", () => {
    const paidAt = new Date(NOW.getTime() - 1000)
    const view = toStatusView(row({ status: "closed", status_changed_at: paidAt }), { now: NOW })
    expect(view).toMatchObject({ state: "paid", final: true, paid_at: paidAt.toISOString() })
  })

  it("answers the amount first assigned and the recalculated one as paid_amount", () => {
    const recalculated = row({ status: "re_calculation", fiat_amount: "1700.00", recalculated_at: NOW })
    expect(toStatusView(recalculated, { now: NOW, originalFiatAmount: "1790.00" })).toMatchObject({
      amount: "1790.00",
      paid_amount: "1700.00",
      state: "in_review",
    })
    const closed = { ...recalculated, status: "closed" }
    expect(toStatusView(closed, { now: NOW, originalFiatAmount: "1790.00" })).toMatchObject({ amount: "1790.00", paid_amount: "1700.00" })
    // without the history, the session total stands in for the first amount
    expect(toStatusView(recalculated, { now: NOW }).amount).toBe("1790.00")
  })

  it("answers the amount the service picked inside a fiatAmountRange, not the order total", () => {
    const view = toStatusView(row({ amount: 1790, raw_amount: { value: "1790" }, fiat_amount: "1812.37" }), { now: NOW })
    expect(view).toMatchObject({ amount: "1812.37", paid_amount: null })
  })

  it("answers the session total while the service has not answered", () => {
    const view = toStatusView(
      row({ status: "creating", service_id: null, fiat_amount: null, fiat_currency: null, requisite: null, bank: null, payment_page_url: null, expires_at: null }),
      { now: NOW }
    )
    expect(view).toMatchObject({ state: "pending", payin_id: null, amount: "1790.00", currency: "RUB", requisite: null, seconds_left: 0, expires_at: null })
  })

  it("takes rows as SQL returns them (strings) as well as the module does (Dates, numbers)", () => {
    const fromSql = toStatusView(
      row({ amount: "1790.00", raw_amount: undefined, expires_at: "2025-01-01T12:00:10.000Z", created_at: "2025-01-01T11:59:00.000Z" }),
      { now: NOW }
    )
    expect(fromSql).toMatchObject({ seconds_left: 10, created_at: "2025-01-01T11:59:00.000Z" })
  })

  it("states final exactly for the final states", () => {
    for (const status of ["creating", "active", "closed", "dispute", "checking", "re_calculation", "canceled", "failed"]) {
      const view = toStatusView(row({ status }), { now: NOW })
      expect(view.final).toBe(FINAL_SHOPPER_STATES.includes(view.state))
    }
  })
})

describe("secondsLeft", () => {
  it("counts down only while awaiting payment, never below 0", () => {
    expect(secondsLeft("awaiting_payment", new Date(NOW.getTime() + 90_999), NOW)).toBe(90)
    expect(secondsLeft("awaiting_payment", new Date(NOW.getTime() - 5_000), NOW)).toBe(0)
    expect(secondsLeft("awaiting_payment", null, NOW)).toBe(0)
    expect(secondsLeft("in_review", new Date(NOW.getTime() + 90_000), NOW)).toBe(0)
    expect(secondsLeft("paid", new Date(NOW.getTime() + 90_000), NOW)).toBe(0)
  })
})

describe("decimal2", () => {
  it("writes amounts with two fraction digits, exactly", () => {
    expect(decimal2("1790")).toBe("1790.00")
    expect(decimal2(1790.5)).toBe("1790.50")
    expect(decimal2("0.005")).toBe("0.01")
    expect(decimal2("1234567890.125")).toBe("1234567890.13")
    expect(decimal2("-3.1")).toBe("-3.10")
    expect(decimal2("abc")).toBeNull()
    expect(decimal2(null)).toBeNull()
  })
})
