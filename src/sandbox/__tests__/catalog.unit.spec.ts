import { BANKS, bankList, currencyList, findBank, findCurrency, luhnCheckDigit, makeRequisite, RequisitePools, stableUuid } from "../catalog"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

function luhnValid(number: string): boolean {
  return luhnCheckDigit(number.slice(0, -1)) === number.slice(-1)
}

describe("catalog", () => {
  it("finds currencies and banks case-insensitively", () => {
    expect(findCurrency("rub")?.fiatCurrency).toBe("RUB")
    expect(findCurrency("xxx")).toBeUndefined()
    expect(findBank("SBERBANK")?.name).toBe("sberbank")
    expect(bankList().map((b) => Object.keys(b).sort())).toEqual(BANKS.map(() => ["currencies", "methods", "name"]))
    expect(bankList().find((b) => b.name === "kaspi")?.currencies).toEqual(["KZT"])
    expect(bankList().every((b) => b.currencies.length > 0 && b.currencies.every((c) => findCurrency(c)?.fiatCurrency === c))).toBe(true)
    expect(currencyList().every((c) => /^[A-Z]{3}$/.test(c.fiatCurrency) && c.cryptoCurrency === c.cryptoCurrency.toLowerCase())).toBe(true)
  })

  it("computes Luhn check digits", () => {
    expect(luhnCheckDigit("7992739871")).toBe("3")
    expect(luhnValid("4111111111111111")).toBe(true)
    expect(luhnValid("4111111111111112")).toBe(false)
  })

  it("makes stable, well-formed UUIDs", () => {
    expect(stableUuid("a")).toBe(stableUuid("a"))
    expect(stableUuid("a")).not.toBe(stableUuid("b"))
    expect(stableUuid("a")).toMatch(UUID)
  })

  it("builds plausible, deterministic requisites for every bank, currency and method", () => {
    const ids = new Set<string>()
    for (const bank of BANKS) {
      for (const currency of bank.currencies) {
        for (const method of bank.methods) {
          for (let i = 0; i < 3; i++) {
            const { requisite } = makeRequisite(bank, currency, method, i)
            expect(makeRequisite(bank, currency, method, i).requisite).toEqual(requisite)
            expect(requisite.id).toMatch(UUID)
            ids.add(requisite.id)
            expect(requisite.bank).toBe(bank.name)
            expect(requisite.fiatCurrency).toBe(currency)
            expect(requisite.ownerName.length).toBeGreaterThan(3)
            if (method === "card" || method === "quasi") {
              expect(requisite.requisites).toMatch(/^\d{16}$/)
              expect(requisite.requisites.startsWith(bank.bin)).toBe(true)
              expect(luhnValid(requisite.requisites)).toBe(true)
            }
            if (method === "phone_number" || method === "mobile_comm") expect(requisite.requisites).toMatch(/^\+\d{11,13}$/)
            if (method === "account" && currency === "RUB") expect(requisite.requisites).toMatch(/^40817810\d{12}$/)
            if (requisite.sbpNumber !== null) {
              expect(currency).toBe("RUB")
              expect(requisite.sbpNumber).toMatch(/^\+79\d{9}$/)
            }
          }
        }
      }
    }
    expect(ids.size).toBe(BANKS.reduce((n, b) => n + b.currencies.length * b.methods.length * 3, 0))
  })

  it("pools requisites per filter and resizes", () => {
    const pools = new RequisitePools(2)
    expect(pools.candidates("RUB", "sberbank", "card")).toHaveLength(2)
    expect(pools.candidates("RUB", "sberbank")).toHaveLength(6)
    expect(pools.candidates("UZS", "sberbank")).toHaveLength(0)
    expect(pools.candidates("RUB", undefined, "qr").every((p) => p.requisite.bank === "tinkoff")).toBe(true)
    pools.setPerMethod(5)
    expect(pools.candidates("RUB", "sberbank", "card")).toHaveLength(5)
  })
})
