import { PAYIN_METHODS } from "../../../client/schemas"
import type { PayinBankOption } from "../../../storefront/types"

/** A bank as the service lists it. Its shape is "not shown" by the spec: only name and methods are relied on. */
export type ServiceBank = { name: string; methods: string[]; [key: string]: unknown }

const KNOWN_METHODS: ReadonlySet<string> = new Set(PAYIN_METHODS)

/** Null when the entry carries no currency information; reads `currencies` (the sandbox), `fiatCurrency` or `currency`. */
export function bankCurrencies(bank: ServiceBank): string[] | null {
  const codes: string[] = []
  if (Array.isArray(bank.currencies)) {
    codes.push(...bank.currencies.filter((c): c is string => typeof c === "string"))
  }
  for (const key of ["fiatCurrency", "currency"] as const) {
    if (typeof bank[key] === "string") {
      codes.push(bank[key] as string)
    }
  }
  const cleaned = codes.map((c) => c.trim().toUpperCase()).filter(Boolean)
  return cleaned.length ? cleaned : null
}

export type BankFilter = {
  currency: string
  /** The instance's effective `allowedBanks`; empty = every bank. */
  allowedBanks: readonly string[]
  /** The instance's effective `allowedMethods`; empty = every method. */
  allowedMethods: readonly string[]
}

/** Entries without currency information are kept (the service may not say); a bank left without a method is dropped; repeated entries are merged. */
export function filterBanks(banks: readonly ServiceBank[], filter: BankFilter): { banks: PayinBankOption[]; methods: string[] } {
  const currency = filter.currency.toUpperCase()
  const allowedBanks = new Set(filter.allowedBanks)
  const allowedMethods = new Set(filter.allowedMethods)
  const byName = new Map<string, string[]>()
  for (const bank of banks) {
    if (typeof bank?.name !== "string" || !bank.name || !Array.isArray(bank.methods)) continue
    const currencies = bankCurrencies(bank)
    if (currencies && !currencies.includes(currency)) continue
    if (allowedBanks.size && !allowedBanks.has(bank.name)) continue
    const methods = byName.get(bank.name) ?? []
    for (const method of bank.methods) {
      // methods the plugin cannot request would be refused when the session is created
      if (typeof method !== "string" || !KNOWN_METHODS.has(method)) continue
      if (allowedMethods.size && !allowedMethods.has(method)) continue
      if (!methods.includes(method)) methods.push(method)
    }
    byName.set(bank.name, methods)
  }
  const kept = [...byName].filter(([, methods]) => methods.length).map(([name, methods]) => ({ name, methods }))
  const union = [...new Set(kept.flatMap((b) => b.methods))].sort()
  return { banks: kept, methods: union }
}

export function currencySupported(currencies: readonly string[] | null, currency: string): boolean {
  return currencies === null || currencies.some((c) => c.toUpperCase() === currency.toUpperCase())
}
