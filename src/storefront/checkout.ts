import { isPayinProvider } from "../provider-id"
import { fromSessionData } from "./session"
import type { PayinBanksResponse, PayinStatusResponse, ShopperState } from "./types"

/**
 * The checkout's pay-in logic, framework-neutral and pure, so a storefront's payment step stays
 * its own code with a few calls into here (the React hook `usePayinChoice` and the components in
 * `/react` are built on these).
 */

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

/** Methods to offer for `bank` (every method of the list when no bank is chosen or it is unknown). */
export function payinMethodsFor(banks: PayinBanksResponse | null | undefined, bank?: string | null): string[] {
  if (!banks) return []
  return (bank ? banks.banks.find((b) => b.name === bank)?.methods : undefined) ?? banks.methods
}

/**
 * The payment methods to show: the store's list without the pay-in when the merchant account
 * takes no payments in the cart's currency (`available: false`). An unknown list (null: the
 * banks could not be read) keeps the pay-in, which then refuses with a readable error if it must.
 */
export function payinOffered<T extends { id: string }>(methods: T[], banks: PayinBanksResponse | null | undefined): T[] {
  return methods.filter((m) => !isPayinProvider(m.id) || banks?.available !== false)
}

/**
 * The return URL the hosted Payment Page sends the shopper back to (both `success_url` and
 * `failure_url`): `returnUrl` with `cart_id` set. The origin must be on the provider's
 * `allowedRedirectOrigins`.
 */
export function payinReturnUrl(returnUrl: string, cartId: string): string {
  const url = new URL(returnUrl)
  url.searchParams.set("cart_id", cartId)
  return url.href
}

/**
 * The starter's return route under the page's first path segment (its `[countryCode]`):
 * `https://shop.example/dk/checkout?step=payment` → `https://shop.example/dk/payin-return`.
 */
export function defaultPayinReturnUrl(pageUrl: string, route = "payin-return"): string {
  const url = new URL(pageUrl)
  const first = url.pathname.split("/").filter(Boolean)[0]
  return `${url.origin}/${first ? `${first}/` : ""}${route}`
}

/**
 * The session `data` of a pay-in: the chosen bank and method, the Payment Page's language and the
 * return URLs. Undefined for any other provider, so it can be passed unconditionally:
 * `initiatePaymentSession(cart, { provider_id, data: payinSessionData(provider_id, …) })`.
 */
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

/** Pay-in states that can no longer be paid. */
const UNPAID: readonly ShopperState[] = ["expired", "canceled", "failed"]

type SessionLike = { provider_id?: string | null; data?: Record<string, unknown> | null } | null | undefined

/**
 * Whether the cart's pending session already is what the shopper chose, so the payment step may
 * keep it (the starter's `checkActiveSession`). True for any other provider; for a pay-in, true
 * when it is paid already, false when it can no longer be paid (window ended, canceled, failed)
 * or when the shopper picked another bank or method than the session has ("" matches any).
 */
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

/** What the order page's heading says of a pay-in order. */
export type PayinOrderOutcome = "awaiting" | "paid" | "unpaid"

/**
 * The order page's outcome from `GET /store/payin/status?order_id=…`: `awaiting` while the
 * transfer is expected (or checked), `paid` once it arrived (or Medusa captured the payment),
 * `unpaid` when the window ended or the pay-in was canceled; null for an order paid otherwise.
 */
export function payinOrderOutcome(response: PayinStatusResponse | null | undefined): PayinOrderOutcome | null {
  const payin = response?.payin
  if (!payin) return null
  if (payin.state === "paid" || response?.order?.payment_status === "captured") return "paid"
  if (UNPAID.includes(payin.state)) return "unpaid"
  return "awaiting"
}
