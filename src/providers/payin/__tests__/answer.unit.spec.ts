import type { LedgerRow } from "../../../modules/payin/ledger/types"
import { CAPTURED_ON_AUTHORIZE_MARK, CAPTURE_ON_AUTHORIZE_KEY, capturedAnswer, sessionAnswer } from "../answer"

/** A closed pay-in of a 1790 RUB session, paid in full. */
const paid = (over: Partial<LedgerRow> = {}): LedgerRow =>
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

const asking = (ledgerId: string, amount: unknown) => ({ idempotency_key: "payses_1", [CAPTURE_ON_AUTHORIZE_KEY]: { ledger_id: ledgerId, amount } })

describe("capturedAnswer: `captured` only for the money path's authorize of a pay-in paid in full", () => {
  it("answers captured, marking the Payment as this pay-in's, when the whole session amount arrived", () => {
    const answer = capturedAnswer(paid(), { payin_id: "svc_1" }, asking("payintx_1", "1790"))
    expect(answer).toEqual({ status: "captured", data: { payin_id: "svc_1", payin_status: "closed", [CAPTURED_ON_AUTHORIZE_MARK]: "payintx_1" } })
    // the same amount written another way is the same amount
    expect(capturedAnswer(paid(), {}, asking("payintx_1", "1790.000"))?.status).toBe("captured")
  })

  it("answers nothing (the usual answer stands) for any other call or any other amount", () => {
    // Medusa's own authorizes (cart completion, an admin's) carry no such context
    expect(capturedAnswer(paid(), {}, { idempotency_key: "payses_1" })).toBeNull()
    expect(capturedAnswer(paid(), {}, undefined)).toBeNull()
    // another pay-in's ledger id
    expect(capturedAnswer(paid(), {}, asking("payintx_2", "1790"))).toBeNull()
    // underpaid: Medusa would capture the whole session amount
    expect(capturedAnswer(paid({ fiat_amount: "1000.00" } as Partial<LedgerRow>), {}, asking("payintx_1", "1790"))).toBeNull()
    expect(capturedAnswer(paid({ fiat_amount: "1000.00" } as Partial<LedgerRow>), {}, asking("payintx_1", "1000"))).toBeNull()
    // an amount that is not the session's, or not a string
    expect(capturedAnswer(paid(), {}, asking("payintx_1", "1789.99"))).toBeNull()
    expect(capturedAnswer(paid(), {}, asking("payintx_1", 1790))).toBeNull()
    // not paid, paid after the store ended it, received in another currency
    expect(capturedAnswer(paid({ status: "active", paid_at: null } as Partial<LedgerRow>), {}, asking("payintx_1", "1790"))).toBeNull()
    expect(capturedAnswer(paid({ store_canceled_at: new Date() } as Partial<LedgerRow>), {}, asking("payintx_1", "1790"))).toBeNull()
    expect(capturedAnswer(paid({ fiat_currency: "USD" } as Partial<LedgerRow>), {}, asking("payintx_1", "1790"))).toBeNull()
  })

  it("the usual answer to a paid pay-in stays `authorized`", () => {
    expect(sessionAnswer(paid(), {}).status).toBe("authorized")
  })
})
