import { isPayinProvider } from "../provider-id"
import { fromSessionData } from "./session"
import type { PayinBanksResponse, PayinStatusResponse, ShopperState } from "./types"

/** The shopper's choice on the payment step; "" (or absent) lets the service choose. */
export type PayinChoiceValue = { bank?: string; method?: string }

/** What `initiatePaymentSession(cart, { provider_id, data })` takes as `data` for a pay-in. */
export type PayinSessionData = {
  bank?: string
  method?: string
  locale?: string
  success_url?: string
  failure_url?: string
}

export function payinMethodsFor(banks: PayinBanksResponse | null | undefined, bank?: string | null): string[] {
  if (!banks) return []
  return (bank ? banks.banks.find((b) => b.name === bank)?.methods : undefined) ?? banks.methods
}

/** Drops the pay-in when the merchant account cannot take the cart's currency; an unknown list (null) keeps it. */
export function payinOffered<T extends { id: string }>(methods: T[], banks: PayinBanksResponse | null | undefined): T[] {
  return methods.filter((m) => !isPayinProvider(m.id) || banks?.available !== false)
}

/** The origin must be on the provider's `allowedRedirectOrigins`. */
export function payinReturnUrl(returnUrl: string, cartId: string): string {
  const url = new URL(returnUrl)
  url.searchParams.set("cart_id", cartId)
  return url.href
}

/** `https://shop.example/dk/checkout?step=payment` → `https://shop.example/dk/payin-return`. */
export function defaultPayinReturnUrl(pageUrl: string, route = "payin-return"): string {
  const url = new URL(pageUrl)
  const first = url.pathname.split("/").filter(Boolean)[0]
  return `${url.origin}/${first ? `${first}/` : ""}${route}`
}

/** Undefined for any other provider, so it can be passed unconditionally. */
export function payinSessionData(
  providerId: string | null | undefined,
  choice: PayinChoiceValue,
  options: { cartId?: string; returnUrl?: string | null; locale?: string | null } = {}
): PayinSessionData | undefined {
  if (!isPayinProvider(providerId)) return undefined
  const data: PayinSessionData = {}
  if (choice.bank) data.bank = choice.bank
  if (choice.method) data.method = choice.method
  if (options.locale) data.locale = options.locale.slice(0, 2).toUpperCase()
  if (options.returnUrl) {
    const back = options.cartId ? payinReturnUrl(options.returnUrl, options.cartId) : options.returnUrl
    data.success_url = back
    data.failure_url = back
  }
  return data
}

const UNPAID: readonly ShopperState[] = ["expired", "canceled", "failed"]

type SessionLike = { provider_id?: string | null; data?: Record<string, unknown> | null } | null | undefined

/** Whether the payment step may keep the cart's pending session (the starter's `checkActiveSession`); "" matches any choice. */
export function payinSessionMatches(session: SessionLike, choice: PayinChoiceValue): boolean {
  if (!session || !isPayinProvider(session.provider_id)) return true
  const data = session.data ?? {}
  const state = fromSessionData(data, session.provider_id).state
  // paid already: keep it whatever the choice (completing the cart places the order)
  if (state === "paid") return true
  if (UNPAID.includes(state)) return false
  const same = (wanted: string | undefined, actual: unknown) => !wanted || wanted === actual
  return same(choice.bank, data.bank) && same(choice.method, data.method)
}

export type PayinOrderOutcome = "awaiting" | "paid" | "unpaid"

/** Null for an order paid otherwise. */
export function payinOrderOutcome(response: PayinStatusResponse | null | undefined): PayinOrderOutcome | null {
  const payin = response?.payin
  if (!payin) return null
  if (payin.state === "paid" || response?.order?.payment_status === "captured") return "paid"
  if (UNPAID.includes(payin.state)) return "unpaid"
  return "awaiting"
}
