"use client"
import { useCallback, useMemo, useState } from "react"
import { isPayinProvider } from "../session"
import {
  defaultPayinReturnUrl,
  payinMethodsFor,
  payinOffered,
  payinSessionData,
  payinSessionMatches,
  type PayinSessionData,
} from "../checkout"
import type { PayinError } from "../errors"
import { getMessages, type Messages, type PayinLocale } from "../messages"
import type { PayinBanksResponse } from "../types"

type SessionLike = { status?: string | null; provider_id?: string | null; data?: Record<string, unknown> | null }
/** What the hook reads of a Medusa store cart (`HttpTypes.StoreCart` fits). */
type CartLike = { id: string; payment_collection?: { payment_sessions?: SessionLike[] | null } | null }

export type UsePayinChoiceOptions = {
  /** `GET /store/payin/banks?cart_id=…`, read on the server (null when it could not be read). */
  banks: PayinBanksResponse | null | undefined
  /**
   * Where the hosted Payment Page sends the shopper back (`cart_id` is added). Default: the
   * route `payin-return` under the page's first path segment, i.e. the Next.js starter's
   * `/[countryCode]/payin-return`. Its origin must be on the provider's `allowedRedirectOrigins`.
   */
  returnUrl?: string
  /** Language of the Payment Page ("EN", "RU"); default the provider's setting. */
  pageLocale?: string
  /** Language of the texts (bank, method and error names). Default "en". */
  locale?: PayinLocale
  messages?: Partial<Messages>
}

/** The shopper's bank and method choice on the payment step, and what the step needs of it. */
export type PayinChoice = {
  banks: PayinBanksResponse | null
  /** "" = any (the service chooses). */
  bank: string
  method: string
  setBank: (bank: string) => void
  setMethod: (method: string) => void
  /** Methods offered for the chosen bank. */
  methods: string[]
  /** The store's payment methods without the pay-in when the cart's currency cannot be paid by it. */
  offered: <T extends { id: string }>(methods: T[]) => T[]
  /** The session `data` for `providerId` (undefined unless it is a pay-in): bank, method, return URLs. */
  sessionData: (providerId: string | null | undefined) => PayinSessionData | undefined
  /**
   * Whether the cart's pending session can be kept (the starter's `checkActiveSession`): same
   * provider and, for a pay-in, the same bank and method and still payable.
   */
  keeps: (providerId: string | null | undefined) => boolean
  /** The text to show for an error of `initiatePaymentSession` (the kit's wording, with the code). */
  errorText: (error: PayinError | string) => string
  messages: Messages
}

/**
 * State and helpers for a pay-in on the payment step. The bank and method start from the cart's
 * pending pay-in session, so a shopper who comes back to the step sees what they chose.
 *
 * @example
 * const payin = usePayinChoice(cart, { banks: payinBanks })
 * await initiatePaymentSession(cart, { provider_id, data: payin.sessionData(provider_id) })
 */
export function usePayinChoice(cart: CartLike, options: UsePayinChoiceOptions): PayinChoice {
  const { banks = null, returnUrl, pageLocale, locale = "en" } = options
  const messages = useMemo(() => getMessages(locale, options.messages), [locale, options.messages])
  const session = cart.payment_collection?.payment_sessions?.find((s) => s.status === "pending")
  const fromSession = (key: "bank" | "method") =>
    isPayinProvider(session?.provider_id) && typeof session?.data?.[key] === "string" ? (session.data[key] as string) : ""
  const [bank, setBankState] = useState(() => fromSession("bank"))
  const [method, setMethod] = useState(() => fromSession("method"))
  const setBank = useCallback((next: string) => {
    setBankState(next)
    setMethod("")
  }, [])

  return {
    banks,
    bank,
    method,
    setBank,
    setMethod,
    methods: payinMethodsFor(banks, bank),
    offered: (list) => payinOffered(list, banks),
    sessionData: (providerId) =>
      payinSessionData(
        providerId,
        { bank, method },
        {
          cartId: cart.id,
          returnUrl: returnUrl ?? (typeof window === "undefined" ? null : defaultPayinReturnUrl(window.location.href)),
          locale: pageLocale,
        }
      ),
    keeps: (providerId) => session?.provider_id === providerId && payinSessionMatches(session, { bank, method }),
    errorText: (error) => (typeof error === "string" ? error : messages.errorText(error.code, error.message)),
    messages,
  }
}

export type PayinBankMethodSelectProps = {
  choice: PayinChoice
  /** The selected payment provider: the selects show only for a pay-in. */
  providerId: string | null | undefined
  className?: string
}

const CHOICE_CSS = `
:where(.payin-choice){display:flex;flex-wrap:wrap;gap:12px;margin:8px 0 16px}
:where(.payin-choice) label{display:flex;flex-direction:column;gap:4px;flex:1 1 12rem;font-size:.875rem}
:where(.payin-choice) select{min-height:44px;padding:8px 12px;border:1px solid #d1d5db;border-radius:6px;background:#fff;font:inherit;font-size:1rem}
`

/**
 * The bank and method selects of a pay-in (nothing for another provider, or when the banks could
 * not be read). Test ids: `payin-bank-select`, `payin-method-select`; the wrapper `payin-choice`.
 */
export function PayinBankMethodSelect({ choice, providerId, className }: PayinBankMethodSelectProps) {
  const { banks, messages: m } = choice
  if (!isPayinProvider(providerId) || !banks || !banks.available || !banks.banks.length) return null
  return (
    <div className={["payin-choice", className].filter(Boolean).join(" ")} data-testid="payin-choice">
      <style dangerouslySetInnerHTML={{ __html: CHOICE_CSS }} />
      <label>
        <span>{m.bank}</span>
        <select value={choice.bank} onChange={(e) => choice.setBank(e.target.value)} data-testid="payin-bank-select">
          <option value="">{m.anyBank}</option>
          {banks.banks.map((b) => (
            <option key={b.name} value={b.name}>
              {m.bankName(b.name)}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>{m.method}</span>
        <select value={choice.method} onChange={(e) => choice.setMethod(e.target.value)} data-testid="payin-method-select">
          <option value="">{m.anyMethod}</option>
          {choice.methods.map((method) => (
            <option key={method} value={method}>
              {m.methodName(method)}
            </option>
          ))}
        </select>
      </label>
    </div>
  )
}
