import type { Transaction } from "../../client/schemas"
import type { LedgerRow } from "../../modules/payin/ledger/types"
import { closedAgainUnseen, ledgerHasSeen } from "../../modules/payin/ledger/rows"
import { effectRunOf, movesBackFromPaid } from "../apply"

describe("effectRunOf", () => {
  it("never lets the store's status poll retry an effect; Reconcile now runs it whatever its backoff; the rest when due", () => {
    expect(effectRunOf("store")).toBe("new")
    expect(effectRunOf("admin")).toBe("now")
    for (const source of ["webhook", "lookup", "authorize", "create"] as const) expect(effectRunOf(source)).toBe("due")
  })
})

describe("a dispute callback after the ledger recorded the pay-in paid", () => {
  const closed = { fiatAmount: "1790.00", fiatCurrency: "RUB", disputeMerchantCheckUrl: null, disputeMerchantFiatAmount: "0", disputeTraderCheckUrl: null, disputeTraderFiatAmount: "0" }
  const tx = (fields: Partial<Transaction>) => ({ ...closed, status: "closed", ...fields }) as Transaction

  it("moves back from paid only into a dispute status", () => {
    expect(movesBackFromPaid({ status: "closed", paid_at: null }, { status: "dispute" })).toBe(true)
    expect(movesBackFromPaid({ status: "dispute", paid_at: new Date() }, { status: "re_calculation" })).toBe(true)
    expect(movesBackFromPaid({ status: "closed", paid_at: new Date() }, { status: "closed" })).toBe(false)
    expect(movesBackFromPaid({ status: "active", paid_at: null }, { status: "dispute" })).toBe(false)
  })

  it("the service's state replaces it only when the ledger has seen that state's amount and dispute (an old callback)", () => {
    expect(ledgerHasSeen({ service_data: { ...closed } }, tx({}))).toBe(true)
    // disputed, recalculated and closed again since the ledger's close: the callback is news
    expect(ledgerHasSeen({ service_data: { ...closed } }, tx({ fiatAmount: "1389.10" }))).toBe(false)
    expect(ledgerHasSeen({ service_data: { ...closed } }, tx({ disputeMerchantCheckUrl: "https://receipts.example/1.pdf" }))).toBe(false)
    expect(ledgerHasSeen({ service_data: null }, tx({}))).toBe(false)
  })

  it("a paid pay-in closed again with fields the ledger never recorded was disputed meanwhile (soak seed 1: its close came before the dispute's callbacks)", () => {
    const row = (fields: Partial<LedgerRow>) => ({ status: "closed", paid_at: new Date(), service_data: { ...closed }, ...fields }) as LedgerRow
    expect(closedAgainUnseen(row({}), tx({ fiatAmount: "1533.79" }))).toBe(true)
    expect(closedAgainUnseen(row({}), tx({ disputeMerchantCheckUrl: "https://receipts.example/1.pdf" }))).toBe(true)
    // a repeated close, one never paid, or a move that is not a close again: not this
    expect(closedAgainUnseen(row({}), tx({}))).toBe(false)
    expect(closedAgainUnseen(row({ paid_at: null }), tx({ fiatAmount: "1533.79" }))).toBe(false)
    expect(closedAgainUnseen(row({ status: "re_calculation" }), tx({ fiatAmount: "1533.79" }))).toBe(false)
    expect(closedAgainUnseen(row({}), tx({ status: "dispute", fiatAmount: "1533.79" }))).toBe(false)
  })
})
