import { SandboxCore } from "../core"
import { NextPayInBodySchema, NextPayInQueue } from "../next-payin"

const parse = (body: unknown) => NextPayInBodySchema.safeParse(body)
const fieldsOf = (body: unknown) => {
  const result = parse(body)
  if (result.success) throw new Error(`expected ${JSON.stringify(body)} to be rejected`)
  return result.error.issues.map((i) => i.path.join("."))
}

describe("NextPayInBodySchema", () => {
  it("accepts an amount (2-decimal string or number), a served currency in any case, and a count", () => {
    expect(parse({ fiatAmount: "12.50" }).data).toEqual({ fiatAmount: 1250, count: 1 })
    expect(parse({ fiatAmount: 12.5 }).data).toEqual({ fiatAmount: 1250, count: 1 })
    expect(parse({ fiatAmount: 1000000000 }).data).toEqual({ fiatAmount: 100000000000, count: 1 })
    expect(parse({ fiatCurrency: "usd", count: 100 }).data).toEqual({ fiatCurrency: "USD", count: 100 })
    expect(parse({ fiatAmount: "0.01", fiatCurrency: "KZT", count: 2 }).data).toEqual({ fiatAmount: 1, fiatCurrency: "KZT", count: 2 })
  })

  it("rejects bodies naming the offending field", () => {
    expect(fieldsOf({})).toEqual(["fiatAmount"])
    expect(fieldsOf({ count: 2 })).toEqual(["fiatAmount"])
    expect(fieldsOf(undefined)).toEqual([""])
    for (const fiatAmount of ["12.5", "12", "0.00", "-1.00", "1e3", " 1.00", 0, -5, 1.005, 1000000000.01, "10000000000.00", true, null]) {
      expect(fieldsOf({ fiatAmount })).toEqual(["fiatAmount"])
    }
    for (const fiatCurrency of ["XXX", "US", "usdt", 840, ""]) expect(fieldsOf({ fiatCurrency })).toEqual(["fiatCurrency"])
    for (const count of [0, 101, 1.5, "2", -1]) expect(fieldsOf({ fiatCurrency: "USD", count })).toEqual(["count"])
    expect(fieldsOf({ fiatCurrency: "USD", bank: "wise" })).toEqual([""])
  })
})

describe("NextPayInQueue", () => {
  it("is FIFO, applies each override count times, and lists what is left", () => {
    const queue = new NextPayInQueue()
    expect(queue.peek()).toBeUndefined()
    queue.add({ fiatAmount: 1250, count: 2 })
    queue.add({ fiatCurrency: "EUR", count: 1 })
    expect(queue.list()).toEqual([
      { fiatAmount: "12.50", count: 2 },
      { fiatCurrency: "EUR", count: 1 },
    ])
    expect(queue.peek()).toEqual({ cents: 1250, remaining: 2 })
    queue.consume()
    expect(queue.list()).toEqual([
      { fiatAmount: "12.50", count: 1 },
      { fiatCurrency: "EUR", count: 1 },
    ])
    queue.consume()
    expect(queue.peek()).toEqual({ fiatCurrency: "EUR", remaining: 1 })
    queue.consume()
    expect(queue.size).toBe(0)
    queue.consume()
    expect(queue.list()).toEqual([])
    queue.add({ fiatAmount: 1, fiatCurrency: "USD", count: 3 })
    queue.clear()
    expect(queue.list()).toEqual([])
  })
})

describe("SandboxCore pay-in creation with overrides", () => {
  let core: SandboxCore
  beforeEach(() => {
    core = new SandboxCore({ merchant: { requisitesPerMethod: 1 }, seed: 7 })
  })
  afterEach(async () => {
    await core.close()
  })

  const override = (body: unknown) => core.nextPayIns.add(NextPayInBodySchema.parse(body))

  it("creates with the overriding amount and currency, amounts computed at the overriding rate", () => {
    override({ fiatAmount: "92.00", fiatCurrency: "eur" })
    const r = core.createPayIn({ fiatAmountRange: { min: 1000, max: 2000 }, fiatCurrency: "RUB" })
    if (!r.ok) throw new Error(r.message)
    const tx = core.view(r.record)
    expect(tx).toMatchObject({ fiatAmount: "92.00", fiatCurrency: "EUR", currencyRate: "0.92", cryptoAmount: "100000000", merchantFee: "2500000" })
    expect(tx.requisite.fiatCurrency).toBe("EUR")
    expect(core.nextPayIns.size).toBe(0)
  })

  it("drops a requested bank (then method) that does not serve the overriding currency", () => {
    override({ fiatCurrency: "USD", count: 2 })
    const byBank = core.createPayIn({ fiatAmount: 10, fiatCurrency: "RUB", bank: "sberbank", method: "card" })
    if (!byBank.ok) throw new Error(byBank.message)
    expect(byBank.record).toMatchObject({ fiatCurrency: "USD", bank: "wise" })
    const byMethod = core.createPayIn({ fiatAmount: 10, fiatCurrency: "EUR", bank: "wise", method: "link" })
    if (!byMethod.ok) throw new Error(byMethod.message)
    expect(byMethod.record).toMatchObject({ fiatCurrency: "USD", bank: "wise", method: "link" })
  })

  it("applies exhaustion to the overriding amount and consumes nothing on failure", () => {
    // One kapitalbank card requisite serves UZS: a second active 5.00 UZS transaction cannot be placed.
    expect(core.createPayIn({ fiatAmount: 5, fiatCurrency: "UZS" }).ok).toBe(true)
    override({ fiatAmount: 5 })
    const failed = core.createPayIn({ fiatAmount: 7, fiatCurrency: "UZS" })
    expect(failed).toMatchObject({ ok: false, code: "REQUISITES_UNAVAILABLE" })
    expect(core.createPayIn({ fiatAmount: 7, fiatCurrency: "XXX" })).toMatchObject({ ok: false, code: "VALIDATION_ERROR" })
    expect(core.nextPayIns.list()).toEqual([{ fiatAmount: "5.00", count: 1 }])
    const other = core.createPayIn({ fiatAmount: 7, fiatCurrency: "RUB" })
    expect(other.ok && core.view(other.record).fiatAmount).toBe("5.00")
    expect(core.nextPayIns.size).toBe(0)
  })

  it("is cleared by reset", () => {
    override({ fiatAmount: 1 })
    core.reset()
    expect(core.nextPayIns.list()).toEqual([])
  })
})
