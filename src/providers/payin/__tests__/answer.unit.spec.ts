import type { LedgerRow } from "../../../modules/payin/ledger/types"
import { authorizeAnswer } from "../answer"

/** A pay-in of a 1790 RUB session, paid in full unless overridden. */
const row = (over: Record<string, unknown> = {}): LedgerRow =>
  ({
    id: "payintx_1",
    provider_id: "pp_payin_default",
    status: "closed",
    amount: "1790",
    raw_amount: { value: "1790" },
    currency_code: "rub",
    fiat_amount: "1790.00",
    fiat_currency: "RUB",
    paid_at: new Date(),
    store_canceled_at: null,
    ...over,
  }) as unknown as LedgerRow

const session = { amount: "1790", currency_code: "rub" }
const unpaid = { paid_at: null, fiat_amount: "1790.00" }

describe("authorizeAnswer: what a pay-in means for the session Medusa authorizes, whoever asks", () => {
  it.each([
    ["paid in full", {}, session, "captured"],
    ["paid in full, the same amount written another way", {}, { amount: "1790.000", currency_code: "RUB" }, "captured"],
    ["paid more than asked: the session amount is booked, the excess flagged", { fiat_amount: "2000.00" }, session, "captured"],
    ["underpaid: the money path captures what arrived", { fiat_amount: "1000.00" }, session, "authorized"],
    ["paid in another currency: nothing may be booked", { fiat_currency: "USD" }, session, "pending_authorization"],
    ["paid after the store ended it: nothing may be booked", { store_canceled_at: new Date() }, session, "pending_authorization"],
    ["paid, then disputed: still paid", { status: "dispute" }, session, "captured"],
    ["unpaid, window open", { ...unpaid, status: "active" }, session, "pending_authorization"],
    ["unpaid, creation under way", { ...unpaid, status: "creating" }, session, "pending_authorization"],
    ["unpaid, in a dispute", { ...unpaid, status: "dispute" }, session, "pending_authorization"],
    ["unpaid, window ended", { ...unpaid, status: "canceled" }, session, "canceled"],
    ["unpaid, ended by the store", { ...unpaid, status: "active", store_canceled_at: new Date() }, session, "canceled"],
    ["creation failed", { ...unpaid, status: "failed" }, session, "error"],
    // the attack of issue 32: a paid pay-in of 1790 attached to a session of 15,200
    ["paid, but the session is for another amount", {}, { amount: "15200", currency_code: "rub" }, "error"],
    ["unpaid, the session for another amount", { ...unpaid, status: "active" }, { amount: "15200", currency_code: "rub" }, "error"],
    ["paid, the session in another currency", {}, { amount: "1790", currency_code: "usd" }, "error"],
    ["paid, the session could not be read", {}, null, "error"],
  ])("%s → %s", (_, over, asked, expected) => {
    expect(authorizeAnswer(row(over), asked, { session_id: "payses_1" }).status).toBe(expected)
  })

  it("keeps the session's data and adds the pay-in's status; a message where the shopper must start again", () => {
    expect(authorizeAnswer(row(), session, { session_id: "payses_1", payin_id: "svc_1" }).data).toEqual({
      session_id: "payses_1",
      payin_id: "svc_1",
      payin_status: "closed",
    })
    expect(authorizeAnswer(row({ ...unpaid, status: "canceled" }), session, {}).data?.error_message).toMatch(/payment window/)
    expect(authorizeAnswer(row(), { amount: "15200", currency_code: "rub" }, {}).data?.error_message).toMatch(/another amount/)
    expect(authorizeAnswer(row({ fiat_currency: "USD" }), session, {}).data?.payin_not_captured).toBe("received in another currency")
  })
})
