import type { Transaction } from "../../client/schemas"

/**
 * The payment-session `data` a storefront reads (Medusa returns session data to the storefront):
 * what the shopper needs to pay, and nothing of the merchant's side (no API key, fee, crypto
 * amount or rate).
 */
export type PayinSessionData = {
  session_id?: string
  /** The service's transaction id. */
  payin_id: string
  /** Ledger row id in the store. */
  payin_ledger_id: string
  payin_status: string
  /** Amount to pay, as the service states it (2-decimal string), and its currency. */
  amount: string
  currency: string
  method: string | null
  bank: string
  requisite: {
    bank: string
    owner_name: string
    /** Account, card or phone number to pay to. */
    number: string
    sbp_number: string | null
  }
  /** Hosted Payment Page, when the service returns one. */
  payment_page_url: string | null
  created_at: string
  /** End of the payment window (ISO 8601). */
  expires_at: string
  /** Set when the pay-in can no longer be paid: a message to show the shopper. */
  error_message?: string
}

export function toSessionData(
  tx: Transaction,
  ledger: { id: string; method?: string | null },
  windowSeconds: number
): PayinSessionData {
  const created = Date.parse(tx.createdAt)
  const expires = new Date((Number.isFinite(created) ? created : Date.now()) + windowSeconds * 1000)
  return {
    payin_id: tx.id,
    payin_ledger_id: ledger.id,
    payin_status: tx.status,
    amount: tx.fiatAmount,
    currency: tx.fiatCurrency.toUpperCase(),
    method: ledger.method ?? null,
    bank: tx.bank,
    requisite: {
      bank: tx.requisite.bank,
      owner_name: tx.requisite.ownerName,
      number: tx.requisite.requisites,
      sbp_number: tx.requisite.sbpNumber ?? null,
    },
    payment_page_url: tx.externalPaymentPageUrl ?? null,
    created_at: tx.createdAt,
    expires_at: expires.toISOString(),
  }
}
