import type { Transaction } from "../../../../client/schemas"
import { changeDetails } from "../rows"

const tx = (over: Partial<Transaction>): Transaction =>
  ({
    id: "8a4c0b5e-0000-4000-8000-000000000001",
    status: "closed",
    fiatAmount: "1790.00",
    disputeMerchantCheckUrl: null,
    disputeTraderCheckUrl: null,
    disputeMerchantFiatAmount: "0",
    disputeTraderFiatAmount: "0",
    requisite: { id: "r1", bank: "Sberbank", ownerName: "Ivan Petrov", requisites: "2200123412341234", fiatCurrency: "RUB" },
    ...over,
  }) as Transaction

describe("changeDetails: what a history row keeps of the service's answer", () => {
  it("keeps the first amount, and an amount only when it changed (compared as decimals)", () => {
    expect(JSON.parse(changeDetails({ fiat_amount: null }, "active", tx({ status: "active" }))!)).toEqual({ fiatAmount: "1790.00" })
    expect(changeDetails({ fiat_amount: "1790" }, "closed", tx({}))).toBeNull()
    expect(changeDetails({ fiat_amount: "1790.00" }, "closed", tx({ fiatAmount: "1790.0" }))).toBeNull()
    expect(JSON.parse(changeDetails({ fiat_amount: "1790.00" }, "closed", tx({ fiatAmount: "1780.00" }))!)).toEqual({ fiatAmount: "1780.00" })
    expect(changeDetails({ fiat_amount: "1790.00" }, "failed", null)).toBeNull()
  })

  it("keeps a dispute's amounts and check links on dispute moves, never the rest of the body", () => {
    const details = JSON.parse(
      changeDetails(
        { fiat_amount: "1790.00" },
        "dispute",
        tx({ status: "dispute", disputeMerchantFiatAmount: "1790.00", disputeMerchantCheckUrl: "https://pay.example.test/check/1" })
      )!
    )
    expect(details).toEqual({ disputeMerchantFiatAmount: "1790.00", disputeMerchantCheckUrl: "https://pay.example.test/check/1" })
    // a closed move ignores dispute fields, and nothing of the requisite or ids is kept
    const closed = changeDetails({ fiat_amount: "1000.00" }, "closed", tx({ disputeMerchantFiatAmount: "5.00" }))!
    expect(JSON.parse(closed)).toEqual({ fiatAmount: "1790.00" })
    for (const secret of ["2200123412341234", "Ivan", "8a4c0b5e", "requisite"]) expect(closed).not.toContain(secret)
  })
})
