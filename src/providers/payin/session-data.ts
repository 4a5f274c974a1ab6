import type { Transaction } from "../../client/schemas"

/** The storefront reads it: nothing of the merchant's side (no API key, fee, crypto amount or rate). */
export type PayinSessionData = {
  session_id?: string
  /** The service's transaction id. */
  payin_id: string
  payin_ledger_id: string
  payin_status: string
  /** As the service states it (2-decimal string). */
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
  payment_page_url: string | null
  created_at: string
  /** End of the payment window. */
  expires_at: string
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
