import { findCurrency, RequisitePools } from "../catalog"
import { seededRandom } from "../random"
import { toTransaction, TransactionStore, type CreateInput } from "../store"

function setup(perMethod = 2) {
  const store = new TransactionStore(new RequisitePools(perMethod), seededRandom(1))
  const changes: [string, string, string][] = []
  store.onStatusChange((record, from, action) => changes.push([record.id, from, `${action}->${record.status}`]))
  return { store, changes }
}

const input = (overrides: Partial<CreateInput> = {}): CreateInput => ({
  cents: 150000,
  currency: findCurrency("RUB")!,
  extra: {},
  paymentPageConfig: null,
  ...overrides,
})

describe("TransactionStore", () => {
  it("creates active records indexed by id and external id, in the spec's shape", () => {
    const { store } = setup()
    const result = store.create(input({ extra: { externalTransactionId: "e1" } }), Date.UTC(2025, 0, 1), 900)
    if (!result.ok) throw new Error(result.message)
    expect(store.get(result.record.id)).toBe(result.record)
    expect(store.getByExternalId("e1")).toBe(result.record)
    expect(result.record.expiresAt - result.record.createdAt).toBe(900_000)
    const tx = toTransaction(result.record, null)
    expect(Object.keys(tx)).toEqual([
      "id", "fiatAmount", "cryptoAmount", "merchantFee", "currencyRate", "type", "status", "bank", "fiatCurrency",
      "cryptoCurrency", "cryptoNetwork", "payoutInvoicesUrl", "disputeMerchantCheckUrl", "disputeTraderCheckUrl",
      "disputeMerchantFiatAmount", "disputeTraderFiatAmount", "requisite", "extra", "createdAt",
    ])
    expect(tx.createdAt).toBe("2025-01-01T00:00:00.000Z")
    expect(toTransaction(result.record, "https://x.test/pay/1").externalPaymentPageUrl).toBe("https://x.test/pay/1")
  })

  it("refuses duplicate external ids", () => {
    const { store } = setup()
    expect(store.create(input({ extra: { externalTransactionId: "e1" } }), 0, 900).ok).toBe(true)
    const again = store.create(input({ cents: 1, extra: { externalTransactionId: "e1" } }), 0, 900)
    expect(again).toMatchObject({ ok: false, code: "DUPLICATE_EXTERNAL_ID" })
    expect(store.size).toBe(1)
  })

  it("holds a (requisite, amount) pair while active and frees it on leaving active", () => {
    const { store } = setup(2)
    const one = { bank: "kapitalbank", currency: findCurrency("UZS")!, method: "card" as const }
    const a = store.create(input(one), 0, 900)
    const b = store.create(input(one), 0, 900)
    expect(a.ok && b.ok).toBe(true)
    expect(store.create(input(one), 0, 900)).toMatchObject({ ok: false, code: "REQUISITES_UNAVAILABLE" })
    if (!a.ok) throw new Error()
    store.apply(a.record, "cancel", 1)
    expect(store.create(input(one), 0, 900).ok).toBe(true)
  })

  it("picks range amounts inside the range and avoids held amounts", () => {
    const { store } = setup(1)
    const base = { bank: "kapitalbank", currency: findCurrency("UZS")! }
    for (let i = 0; i < 5; i++) {
      const r = store.create(input({ ...base, cents: undefined, range: { min: 100, max: 104 } }), 0, 900)
      if (!r.ok) throw new Error(r.message)
      expect(r.record.cents).toBeGreaterThanOrEqual(100)
      expect(r.record.cents).toBeLessThanOrEqual(104)
    }
    // All five amounts are held by the single requisite now.
    expect(store.create(input({ ...base, cents: undefined, range: { min: 100, max: 104 } }), 0, 900).ok).toBe(false)
    expect(new Set(store.all().map((r) => r.cents)).size).toBe(5)
  })

  it("applies the transition table and notifies each change once", () => {
    const { store, changes } = setup()
    const r = store.create(input(), 0, 900)
    if (!r.ok) throw new Error()
    expect(store.apply(r.record, "checking", 1)).toMatchObject({ ok: false, code: "INVALID_TRANSITION" })
    expect(store.apply(r.record, "dispute", 1, { disputeMerchantCents: 100, disputeMerchantCheckUrl: "u" }).ok).toBe(true)
    expect(r.record.disputeMerchantFiatAmount).toBe("1.00")
    expect(store.apply(r.record, "recalculate", 2, { cents: 96450 }).ok).toBe(true)
    expect(r.record.cryptoAmount).toBe("10000000")
    expect(r.record.merchantFee).toBe("250000")
    expect(store.apply(r.record, "close", 3).ok).toBe(true)
    expect(changes.map((c) => c[2])).toEqual(["dispute->dispute", "recalculate->re_calculation", "close->closed"])
  })

  it("sweeps exactly the transactions whose window has ended", () => {
    const { store, changes } = setup(3)
    const early = store.create(input({ cents: 1 }), 0, 10)
    const late = store.create(input({ cents: 2 }), 0, 20)
    const paid = store.create(input({ cents: 3 }), 0, 5)
    if (!early.ok || !late.ok || !paid.ok) throw new Error()
    store.apply(paid.record, "pay", 1)
    expect(store.sweep(9_999)).toBe(0)
    expect(store.sweep(10_000)).toBe(1)
    expect(early.record.status).toBe("canceled")
    expect(late.record.status).toBe("active")
    expect(store.sweep(50_000)).toBe(1)
    expect(store.sweep(60_000)).toBe(0)
    expect(changes.map((c) => c[2])).toEqual(["pay->closed", "expire->canceled", "expire->canceled"])
  })
})
