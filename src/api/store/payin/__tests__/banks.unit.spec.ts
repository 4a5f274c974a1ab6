import { bankList } from "../../../../sandbox/catalog"
import { bankCurrencies, currencySupported, filterBanks } from "../banks"

const all = { allowedBanks: [], allowedMethods: [] }

describe("bankCurrencies", () => {
  it("reads each accepted shape, or null when the entry says nothing", () => {
    expect(bankCurrencies({ name: "a", methods: [], currencies: ["rub", "KZT"] })).toEqual(["RUB", "KZT"])
    expect(bankCurrencies({ name: "a", methods: [], fiatCurrency: "rub" })).toEqual(["RUB"])
    expect(bankCurrencies({ name: "a", methods: [], currency: "Kzt" })).toEqual(["KZT"])
    expect(bankCurrencies({ name: "a", methods: [] })).toBeNull()
    expect(bankCurrencies({ name: "a", methods: [], currencies: [], currency: 5 })).toBeNull()
  })
})

describe("filterBanks", () => {
  it("keeps the banks of the currency (the sandbox's list) with the union of their methods", () => {
    const rub = filterBanks(bankList(), { currency: "rub", ...all })
    expect(rub.banks.map((b) => b.name)).toEqual(["sberbank", "tinkoff", "vtb", "alfabank", "mts"])
    expect(rub.methods).toEqual(["account", "card", "deeplink", "link", "mobile_comm", "phone_number", "qr", "quasi"])
    const kzt = filterBanks(bankList(), { currency: "KZT", ...all })
    expect(kzt.banks).toEqual([
      { name: "kaspi", methods: ["card", "phone_number"] },
      { name: "halyk", methods: ["card", "account"] },
    ])
    expect(kzt.methods).toEqual(["account", "card", "phone_number"])
    expect(filterBanks(bankList(), { currency: "GBP", ...all })).toEqual({ banks: [], methods: [] })
  })

  it("accepts one-currency entries and keeps entries without currency information", () => {
    const banks = [
      { name: "a", methods: ["card"], fiatCurrency: "RUB" },
      { name: "b", methods: ["card"], currency: "KZT" },
      { name: "c", methods: ["qr"] },
      { name: "a", methods: ["card", "phone_number"], fiatCurrency: "rub" },
    ]
    expect(filterBanks(banks, { currency: "RUB", ...all })).toEqual({
      banks: [
        { name: "a", methods: ["card", "phone_number"] },
        { name: "c", methods: ["qr"] },
      ],
      methods: ["card", "phone_number", "qr"],
    })
  })

  it("narrows to the allowed banks (exact names, as the session check compares them)", () => {
    const result = filterBanks(bankList(), { currency: "RUB", allowedBanks: ["tinkoff", "Sberbank", "kaspi"], allowedMethods: [] })
    expect(result.banks.map((b) => b.name)).toEqual(["tinkoff"])
    expect(result.methods).toEqual(["card", "deeplink", "phone_number", "qr"])
  })

  it("narrows to the allowed methods and drops banks left without one", () => {
    const result = filterBanks(bankList(), { currency: "RUB", allowedBanks: [], allowedMethods: ["qr", "link"] })
    expect(result.banks).toEqual([
      { name: "tinkoff", methods: ["qr"] },
      { name: "vtb", methods: ["link"] },
    ])
    expect(result.methods).toEqual(["link", "qr"])
  })

  it("drops methods the plugin cannot request and malformed entries", () => {
    const banks = [
      { name: "a", methods: ["card", "crypto_wallet"] },
      { name: "b", methods: ["crypto_wallet"] },
      { name: "", methods: ["card"] },
      { name: "c", methods: "card" },
    ] as never[]
    expect(filterBanks(banks, { currency: "RUB", ...all })).toEqual({ banks: [{ name: "a", methods: ["card"] }], methods: ["card"] })
  })
})

describe("currencySupported", () => {
  it("checks the merchant's list in any case; an unread list does not block", () => {
    expect(currencySupported(["RUB", "KZT"], "rub")).toBe(true)
    expect(currencySupported(["RUB"], "GBP")).toBe(false)
    expect(currencySupported(null, "GBP")).toBe(true)
  })
})
