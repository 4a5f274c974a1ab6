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
type CartLike = { id: string; payment_collection?: { payment_sessions?: SessionLike[] | null } | null }

export type UsePayinChoiceOptions = {
  banks: PayinBanksResponse | null | undefined
  /** Default: `payin-return` under the page's first path segment (the starter's `/[countryCode]/payin-return`). */
  returnUrl?: string
  /** Language of the Payment Page ("EN", "RU"); default the provider's setting. */
  pageLocale?: string
  locale?: PayinLocale
  messages?: Partial<Messages>
}

export type PayinChoice = {
  banks: PayinBanksResponse | null
  /** "" = any (the service chooses). */
  bank: string
  method: string
  setBank: (bank: string) => void
  setMethod: (method: string) => void
  methods: string[]
  offered: <T extends { id: string }>(methods: T[]) => T[]
  sessionData: (providerId: string | null | undefined) => PayinSessionData | undefined
  keeps: (providerId: string | null | undefined) => boolean
  errorText: (error: PayinError | string) => string
  messages: Messages
}

/** The bank and method start from the cart's pending pay-in session, so a shopper coming back to the step sees their choice. */
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
  providerId: string | null | undefined
  className?: string
}

// Select borders 4.8:1 on white (a control's edge needs 3:1, WCAG 1.4.11) and the instructions' focus ring.
const CHOICE_CSS = `
:where(.payin-choice){display:flex;flex-wrap:wrap;gap:12px;margin:8px 0 16px}
:where(.payin-choice) label{display:flex;flex-direction:column;gap:4px;flex:1 1 12rem;font-size:.875rem}
:where(.payin-choice) select{min-height:44px;padding:8px 12px;border:1px solid #6b7280;border-radius:6px;background:#fff;color:#1a1d23;font:inherit;font-size:1rem}
:where(.payin-choice) select:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
`

/** Nothing for another provider or when the banks could not be read. */
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
