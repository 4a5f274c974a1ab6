import type { LedgerRow } from "../../../modules/payin/ledger/types"
import {
  MAX_CREATIONS_PER_COLLECTION,
  REUSE_MIN_SECONDS_LEFT,
  WantedPayin,
  isReusable,
  overCreationCap,
  paidForThisCart,
  reusableCandidates,
} from "../session-reuse"

const NOW = Date.parse("2026-01-01T12:00:00.000Z")
const inSeconds = (s: number) => new Date(NOW + s * 1000)

const live = (patch: Partial<LedgerRow> = {}): LedgerRow =>
  ({
    id: "payintx_1",
    provider_id: "pp_payin_default",
    session_id: "payses_old",
    service_id: "8a4c0b5e-0000-4000-8000-000000000001",
    status: "active",
    amount: "1790",
    raw_amount: { value: "1790" },
    currency_code: "rub",
    method: "card",
    bank: "sberbank",
    requisite: { requisites: "2200000000000000" },
    service_data: { id: "8a4c0b5e-0000-4000-8000-000000000001" },
    expires_at: inSeconds(600),
    paid_at: null,
    store_canceled_at: null,
    session_deleted_at: null,
    order_id: null,
    flags: null,
    flag_kinds: null,
    deleted_at: null,
    ...patch,
  }) as unknown as LedgerRow

const wanted: WantedPayin = { providerId: "pp_payin_default", amount: "1790.00", currencyCode: "rub", method: null, bank: null }

describe("isReusable", () => {
  it("re-shows a live pay-in of the same instance, amount and currency, also after its old session was deleted", () => {
    expect(isReusable(live(), wanted, NOW)).toBe(true)
    expect(isReusable(live({ session_deleted_at: new Date(NOW) } as Partial<LedgerRow>), wanted, NOW)).toBe(true)
    expect(isReusable(live({ expires_at: inSeconds(600).toISOString() } as unknown as Partial<LedgerRow>), wanted, NOW)).toBe(true)
  })

  it("never re-shows a pay-in that is not active, paid, ended, ordered, flagged or without requisites", () => {
    for (const patch of [
      { status: "creating" },
      { status: "canceled" },
      { status: "closed" },
      { status: "dispute" },
      { paid_at: new Date(NOW) },
      { store_canceled_at: new Date(NOW) },
      { order_id: "order_1" },
      { flags: { created_mismatch: { at: "x" } }, flag_kinds: ["created_mismatch"] },
      { service_id: null },
      { requisite: null },
      { service_data: null },
      { provider_id: "pp_payin_second" },
    ]) {
      expect([patch, isReusable(live(patch as Partial<LedgerRow>), wanted, NOW)]).toEqual([patch, false])
    }
  })

  it(`needs more than ${REUSE_MIN_SECONDS_LEFT} s of its window left`, () => {
    expect(isReusable(live({ expires_at: inSeconds(REUSE_MIN_SECONDS_LEFT + 1) } as Partial<LedgerRow>), wanted, NOW)).toBe(true)
    expect(isReusable(live({ expires_at: inSeconds(REUSE_MIN_SECONDS_LEFT) } as Partial<LedgerRow>), wanted, NOW)).toBe(false)
    expect(isReusable(live({ expires_at: inSeconds(-1) } as Partial<LedgerRow>), wanted, NOW)).toBe(false)
    expect(isReusable(live({ expires_at: null } as Partial<LedgerRow>), wanted, NOW)).toBe(false)
  })

  it("needs the same amount (at the currency's precision) and currency", () => {
    expect(isReusable(live(), { ...wanted, amount: "1790.01" }, NOW)).toBe(false)
    expect(isReusable(live(), { ...wanted, currencyCode: "kzt" }, NOW)).toBe(false)
    expect(isReusable(live({ raw_amount: { value: "1790.004" } } as Partial<LedgerRow>), wanted, NOW)).toBe(true)
  })

  it("needs the bank and method the shopper chose, when chosen", () => {
    expect(isReusable(live(), { ...wanted, method: "card" }, NOW)).toBe(true)
    expect(isReusable(live(), { ...wanted, method: "qr" }, NOW)).toBe(false)
    expect(isReusable(live(), { ...wanted, bank: "sberbank" }, NOW)).toBe(true)
    expect(isReusable(live(), { ...wanted, bank: "tinkoff" }, NOW)).toBe(false)
    expect(isReusable(live({ method: null } as Partial<LedgerRow>), { ...wanted, method: "card" }, NOW)).toBe(false)
  })

  it("keeps the candidates' order (the ledger's newest first)", () => {
    const rows = [live({ id: "b" } as Partial<LedgerRow>), live({ id: "x", status: "canceled" } as Partial<LedgerRow>), live({ id: "a" } as Partial<LedgerRow>)]
    expect(reusableCandidates(rows, wanted, NOW).map((r) => r.id)).toEqual(["b", "a"])
  })
})

describe("overCreationCap", () => {
  it(`allows ${MAX_CREATIONS_PER_COLLECTION} creations per window, counted before or after the new row is written`, () => {
    expect(overCreationCap(MAX_CREATIONS_PER_COLLECTION - 1, { including: false })).toBe(false)
    expect(overCreationCap(MAX_CREATIONS_PER_COLLECTION, { including: false })).toBe(true)
    expect(overCreationCap(MAX_CREATIONS_PER_COLLECTION, { including: true })).toBe(false)
    expect(overCreationCap(MAX_CREATIONS_PER_COLLECTION + 1, { including: true })).toBe(true)
  })
})

describe("paidForThisCart", () => {
  it("an earlier pay-in's money blocks new details unless it is a stray payment after the cart changed (soak seed 1)", () => {
    const at = new Date(NOW)
    expect(paidForThisCart(live({ paid_at: at }))).toBe(true)
    expect(paidForThisCart(live({ paid_at: at, session_deleted_at: at, captured_at: at } as Partial<LedgerRow>))).toBe(true)
    expect(paidForThisCart(live({ paid_at: at, session_deleted_at: at, reattach_requested_at: at } as Partial<LedgerRow>))).toBe(true)
    // paid after Medusa deleted its session: flagged stray, not this cart's money
    expect(paidForThisCart(live({ paid_at: at, session_deleted_at: at }))).toBe(false)
    expect(paidForThisCart(live({}))).toBe(false)
  })
})
