import { createHash } from "crypto"
import type { Currency, PayinMethod, Requisite } from "../client/schemas"

// Deterministic, so requisite ids survive restarts with --data and tests can reason about pool sizes.

export interface CurrencyEntry extends Currency {
  fiatCurrency: string
  cryptoCurrency: string
  cryptoNetwork: string
  rate: string
}

export const CURRENCIES: readonly CurrencyEntry[] = [
  { fiatCurrency: "RUB", cryptoCurrency: "usdt", cryptoNetwork: "trc20", rate: "96.45" },
  { fiatCurrency: "USD", cryptoCurrency: "usdt", cryptoNetwork: "trc20", rate: "1.00" },
  { fiatCurrency: "EUR", cryptoCurrency: "usdt", cryptoNetwork: "trc20", rate: "0.92" },
  { fiatCurrency: "KZT", cryptoCurrency: "usdt", cryptoNetwork: "trc20", rate: "478.50" },
  { fiatCurrency: "UZS", cryptoCurrency: "usdt", cryptoNetwork: "trc20", rate: "12650.00" },
]

export interface BankEntry {
  name: string
  currencies: readonly string[]
  methods: readonly PayinMethod[]
  bin: string
}

export const BANKS: readonly BankEntry[] = [
  { name: "sberbank", currencies: ["RUB"], methods: ["card", "phone_number", "account"], bin: "220220" },
  { name: "tinkoff", currencies: ["RUB"], methods: ["card", "phone_number", "qr", "deeplink"], bin: "220070" },
  { name: "vtb", currencies: ["RUB"], methods: ["card", "account", "link"], bin: "220024" },
  { name: "alfabank", currencies: ["RUB"], methods: ["card", "phone_number", "quasi"], bin: "220015" },
  { name: "mts", currencies: ["RUB"], methods: ["mobile_comm", "phone_number"], bin: "220028" },
  { name: "kaspi", currencies: ["KZT"], methods: ["card", "phone_number"], bin: "440043" },
  { name: "halyk", currencies: ["KZT"], methods: ["card", "account"], bin: "440563" },
  { name: "kapitalbank", currencies: ["UZS"], methods: ["card"], bin: "860049" },
  { name: "wise", currencies: ["USD", "EUR"], methods: ["account", "link"], bin: "535522" },
]

const CURRENCY_BY_CODE = new Map(CURRENCIES.map((c) => [c.fiatCurrency, c]))
const BANK_BY_NAME = new Map(BANKS.map((b) => [b.name, b]))

export function findCurrency(code: string): CurrencyEntry | undefined {
  return CURRENCY_BY_CODE.get(code.toUpperCase())
}

export function findBank(name: string): BankEntry | undefined {
  return BANK_BY_NAME.get(name.toLowerCase())
}

/** The spec does not show the shape; the sandbox adds each bank's currencies so a store can offer only its cart currency's banks. */
export function bankList(): { name: string; methods: string[]; currencies: string[] }[] {
  return BANKS.map((b) => ({ name: b.name, methods: [...b.methods], currencies: [...b.currencies] }))
}

export function currencyList(): CurrencyEntry[] {
  return CURRENCIES.map((c) => ({ ...c }))
}

const ISO_NUMERIC: Record<string, string> = { RUB: "810", USD: "840", EUR: "978", KZT: "398", UZS: "860" }
/** Mobile number prefix and total digit count (without "+") per currency's country. */
const PHONE_FORMAT: Record<string, [string, number]> = {
  RUB: ["+79", 11],
  KZT: ["+77", 11],
  UZS: ["+99890", 12],
  USD: ["+1415", 11],
  EUR: ["+49151", 13],
}
const OWNER_NAMES: Record<string, readonly string[]> = {
  RUB: ["Ivan Ivanovich P.", "Anna Sergeevna K.", "Dmitry Olegovich S.", "Elena Viktorovna M.", "Sergey Pavlovich L."],
  KZT: ["Nursultan Erlanovich A.", "Aigerim Bolatovna S.", "Daniyar Serikovich T."],
  UZS: ["Timur Rustamovich Y.", "Dilnoza Akmalovna R.", "Bekzod Anvarovich K."],
  USD: ["John Smith", "Emily Johnson", "Michael Brown"],
  EUR: ["Lukas Schmidt", "Sophie Martin", "Marco Rossi"],
}

export interface PooledRequisite {
  requisite: Requisite & { sbpNumber: string | null }
  method: PayinMethod
}

function digest(seed: string): Buffer {
  return createHash("sha1").update(`payin-sandbox:${seed}`).digest()
}

function digitsFrom(bytes: Buffer, count: number, offset = 0): string {
  let out = ""
  for (let i = 0; out.length < count; i++) {
    out += String(bytes[(offset + i) % bytes.length] % 10)
  }
  return out
}

/** Name-based UUID (version 5 layout) so requisite ids are stable. */
export function stableUuid(seed: string): string {
  const bytes = Buffer.from(digest(seed).subarray(0, 16))
  bytes[6] = (bytes[6] & 0x0f) | 0x50
  bytes[8] = (bytes[8] & 0x3f) | 0x80
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export function luhnCheckDigit(partial: string): string {
  let sum = 0
  for (let i = 0; i < partial.length; i++) {
    let d = Number(partial[partial.length - 1 - i])
    if (i % 2 === 0) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return String((10 - (sum % 10)) % 10)
}

function requisiteValue(bank: BankEntry, currency: string, method: PayinMethod, bytes: Buffer, phone: string): string {
  switch (method) {
    case "card":
    case "quasi": {
      const partial = bank.bin + digitsFrom(bytes, 15 - bank.bin.length)
      return partial + luhnCheckDigit(partial)
    }
    case "account":
      return currency === "USD" || currency === "EUR"
        ? `GB${digitsFrom(bytes, 2, 3)}TRWI${digitsFrom(bytes, 14, 5)}`
        : `40817${ISO_NUMERIC[currency] ?? "000"}${digitsFrom(bytes, 12)}`
    case "phone_number":
    case "mobile_comm":
      return phone
    case "qr":
      return `https://qr.nspk.ru/AS${bytes.toString("hex").slice(0, 30).toUpperCase()}`
    case "link":
      return `https://pay.${bank.name}.example/t/${bytes.toString("hex").slice(0, 16)}`
    case "deeplink":
      return `${bank.name}://transfer?phone=${phone.replace("+", "")}`
  }
}

export function makeRequisite(bank: BankEntry, currency: string, method: PayinMethod, index: number): PooledRequisite {
  const seed = `${bank.name}:${currency}:${method}:${index}`
  const bytes = digest(seed)
  const [prefix, total] = PHONE_FORMAT[currency] ?? ["+1415", 11]
  const phone = prefix + digitsFrom(bytes, total - (prefix.length - 1), 7)
  const names = OWNER_NAMES[currency] ?? OWNER_NAMES.USD
  // SBP (the Russian fast payment system) is reachable by phone: RUB requisites other than plain
  // accounts and mobile-operator top-ups carry one; every other requisite has none (null).
  const sbp = currency === "RUB" && method !== "account" && method !== "mobile_comm" && !(method === "card" && index % 2 === 1)
  return {
    method,
    requisite: {
      id: stableUuid(seed),
      bank: bank.name,
      ownerName: names[bytes[1] % names.length],
      sbpNumber: sbp ? phone : null,
      requisites: requisiteValue(bank, currency, method, bytes, phone),
      fiatCurrency: currency,
    },
  }
}

export class RequisitePools {
  private cache = new Map<string, PooledRequisite[]>()

  constructor(private perMethod: number) {}

  setPerMethod(perMethod: number): void {
    if (perMethod !== this.perMethod) {
      this.perMethod = perMethod
      this.cache.clear()
    }
  }

  candidates(currency: string, bank?: string, method?: PayinMethod): PooledRequisite[] {
    const key = `${currency}|${bank ?? ""}|${method ?? ""}`
    let pool = this.cache.get(key)
    if (!pool) {
      pool = []
      for (const entry of BANKS) {
        if (bank && entry.name !== bank) continue
        if (!entry.currencies.includes(currency)) continue
        for (const m of entry.methods) {
          if (method && m !== method) continue
          for (let i = 0; i < this.perMethod; i++) {
            pool.push(makeRequisite(entry, currency, m, i))
          }
        }
      }
      this.cache.set(key, pool)
    }
    return pool
  }
}
