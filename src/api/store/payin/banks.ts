import { PAYIN_METHODS } from "../../../client/schemas"
import type { PayinBankOption } from "../../../storefront/types"

/**
 * The bank list a shopper may choose from: the service's list narrowed to one currency and to
 * the merchant's allowed banks and methods. Pure, so every rule is unit-tested.
 */

/** A bank as the service lists it. Its shape is "not shown" by the spec: only name and methods are relied on. */
export type ServiceBank = { name: string; methods: string[]; [key: string]: unknown }

const KNOWN_METHODS: ReadonlySet<string> = new Set(PAYIN_METHODS)

/**
 * The currencies a bank entry says it serves (upper-case), or null when it carries no currency
 * information. Accepted shapes: `currencies: string[]` (the sandbox), `fiatCurrency` or `currency`
 * (one currency per entry).
 */
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
  /** Upper- or lower-case ISO 4217 code. */
  currency: string
  /** The instance's effective `allowedBanks`; empty = every bank. */
  allowedBanks: readonly string[]
  /** The instance's effective `allowedMethods`; empty = every method. */
  allowedMethods: readonly string[]
}

/**
 * Keeps the banks that serve `currency` (entries without currency information are kept: the
 * service may not say), that the merchant allows (exact names, as the session's `bank` check
 * compares them), with the methods the merchant allows and the plugin can request; a bank left
 * without a method is dropped. Entries listed more than once (one per currency, say) are merged.
 */
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

/** True when the merchant's currency list (null: it could not be read) includes `currency`. */
export function currencySupported(currencies: readonly string[] | null, currency: string): boolean {
  return currencies === null || currencies.some((c) => c.toUpperCase() === currency.toUpperCase())
}
