import { MedusaError } from "@medusajs/framework/utils"
import { PayinRequisitesUnavailableError, PayinServiceError, PayinUnauthorizedError } from "../../../client/errors"
import { payinError } from "../payin-error"
import { fiatAmountOf, toMedusaError } from "../request"

const KEY = "live-key-0123456789abcdef"

const logger = () => {
  const lines: string[] = []
  return { lines, error: (m: string) => void lines.push(m) }
}

describe("toMedusaError: fixed text for the shopper, the detail in the log", () => {
  it("never passes a database error's text to the shopper", () => {
    const log = logger()
    const db = new Error(
      `insert into "payin_transaction" ("id", "provider_id") values ($1, $2) - duplicate key value violates unique constraint "IDX_payin_transaction_session_id_unique" (key ${KEY})`
    )
    const error = toMedusaError(db, "record the pay-in", "pp_payin_default", log, [KEY]) as MedusaError
    expect(MedusaError.isMedusaError(error)).toBe(true)
    expect(error.code).toBe("payin_unavailable")
    expect(error.message).toMatch(/could not be started right now/)
    expect(error.message).toMatch(/ \(payin_unavailable\)$/)
    for (const leak of ["payin_transaction", "insert", "duplicate key", "IDX_", KEY]) {
      expect(error.message).not.toContain(leak)
    }
    // the merchant's side: the detail, without the key
    expect(log.lines.join("\n")).toContain("duplicate key value violates unique constraint")
    expect(log.lines.join("\n")).not.toContain(KEY)
    expect(log.lines.join("\n")).toContain("[redacted]")
  })

  it("never passes a Medusa error of someone else (not a payin_ code) to the shopper", () => {
    const log = logger()
    const internal = new MedusaError(MedusaError.Types.NOT_FOUND, "Pay-in payintx_01ABC was not found in table payin_transaction")
    const error = toMedusaError(internal, "record the pay-in", "pp_payin_default", log) as MedusaError
    expect(error.message).not.toContain("payin_transaction")
    expect(error.code).toBe("payin_unavailable")
    expect(log.lines[0]).toContain("payintx_01ABC")
  })

  it("passes the plugin's own shopper errors on as they are", () => {
    const own = payinError(MedusaError.Types.NOT_ALLOWED, "This order is already paid", "payin_already_paid")
    expect(toMedusaError(own, "x", "pp_payin_default", logger())).toBe(own)
  })

  it("answers the service's refusals with fixed text per code, never the service's words", () => {
    const log = logger()
    const cases: [PayinServiceError, string, RegExp][] = [
      [
        new PayinServiceError("validation", "The payment service refused POST /payment/trading/pay-in (400 INTERNAL_TRADER_POOL_7: pool db-3 empty)", { status: 400 }),
        "payin_rejected",
        /refused this payment/,
      ],
      [new PayinRequisitesUnavailableError({ status: 409 }, "trader pool db-3 empty"), "payin_requisites_unavailable", /No payment requisites are available/],
      [new PayinUnauthorizedError({ status: 401 }), "payin_unavailable", /refused the store's credentials/],
      [new PayinServiceError("server", "The payment service answered 502 from upstream 10.0.0.7", { status: 502 }), "payin_unavailable", /not responding/],
    ]
    for (const [service, code, text] of cases) {
      const error = toMedusaError(service, "create the pay-in", "pp_payin_default", log, [KEY]) as MedusaError
      expect([code, error.code]).toEqual([code, code])
      expect(error.message).toMatch(text)
      for (const leak of ["INTERNAL_TRADER_POOL_7", "db-3", "/payment/trading", "10.0.0.7", "401", "400"]) {
        expect([code, leak, error.message.includes(leak)]).toEqual([code, leak, false])
      }
    }
    expect(log.lines.join("\n")).toContain("INTERNAL_TRADER_POOL_7")
    expect(log.lines.join("\n")).toContain("trader pool db-3 empty")
  })
})

describe("fiatAmountOf: the session amount as the service takes it", () => {
  it("rounds at the currency's digits and writes two fraction digits (src/money)", () => {
    expect(fiatAmountOf({ amount: 1490, currency_code: "rub" })).toEqual({ decimal: "1490.00", value: 1490 })
    expect(fiatAmountOf({ amount: { value: "1500.5", precision: 20 }, currency_code: "jpy" }).decimal).toBe("1501.00")
  })

  it("answers what the service cannot take with Medusa's invalid data error (a 400 for the storefront)", () => {
    for (const [amount, currency, text] of [
      [0, "rub", /greater than zero/],
      ["abc", "rub", /not a finite number/],
      [1e10, "rub", /largest amount the payment service takes \(1000000000\)/],
      [10, "kwd", /KWD has 3 fraction digits/],
    ] as const) {
      const error = (() => {
        try {
          fiatAmountOf({ amount, currency_code: currency })
        } catch (e) {
          return e as MedusaError
        }
      })()
      expect(MedusaError.isMedusaError(error)).toBe(true)
      expect(error?.type).toBe(MedusaError.Types.INVALID_DATA)
      expect(error?.message).toMatch(text)
    }
  })
})
