// The transactions' part of the admin API: the list, a pay-in's detail, an order's pay-ins, "Reconcile now".
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import type { LedgerStatus } from "../../status"
import { adminFetch, adminUrl } from "./api"

export type TransactionRow = {
  id: string
  provider_id: string
  service_id: string | null
  session_id: string | null
  status: LedgerStatus
  amount: string
  currency_code: string
  fiat_amount: string | null
  fiat_currency: string | null
  method: string | null
  bank: string | null
  order_id: string | null
  cart_id: string | null
  payment_collection_id: string | null
  expires_at: string | null
  created_at: string
  updated_at: string
  status_changed_at: string | null
  paid_at: string | null
  captured_at: string | null
  disputed_at: string | null
  pay_again_until: string | null
  via_pay_again: boolean
  store_canceled_at: string | null
  session_deleted_at: string | null
  recalculated_at: string | null
  flags: Record<string, { at?: string } & Record<string, unknown>> | null
  last_error: string | null
  payment_page_url: string | null
}

export type TransactionDetail = TransactionRow & {
  requisite: { id?: string; bank?: string; ownerName?: string; requisites?: string; sbpNumber?: string | null; fiatCurrency?: string } | null
  crypto_amount: string | null
  crypto_currency: string | null
  crypto_network: string | null
  currency_rate: string | null
  merchant_fee: string | null
  dispute: { merchant_check_url: string | null; trader_check_url: string | null; merchant_fiat_amount: string | null; trader_fiat_amount: string | null } | null
  refunds: { amount: string; at: string; mode: string }[] | null
}

export type HistoryEntry = { id: number; from_status: string | null; to_status: string; source: string; note: string | null; created_at: string }
export type WebhookEntry = {
  id: string
  status: string
  state: "received" | "applied" | "failed"
  attempts: number
  duplicates: number
  last_error: string | null
  created_at: string
  applied_at: string | null
}
/** A shopper notification owed for the pay-in's order, and what became of it. */
export type NotificationEntry = {
  id: string
  kind: "instructions" | "paid" | "expired"
  status: "due" | "sent" | "failed" | "skipped"
  attempts: number
  last_error: string | null
  next_attempt_at: string | null
  sent_at: string | null
  created_at: string | null
}
export type DetailView = {
  transaction: TransactionDetail
  history: HistoryEntry[]
  webhooks: WebhookEntry[]
  notifications: NotificationEntry[]
}
export type ReconcileResult = { found: boolean; changed: boolean; from: string; to: string; effects: string[] }

const keys = {
  transactions: (query: string) => ["payin", "transactions", query] as const,
  transaction: (id: string) => ["payin", "transaction", id] as const,
  order: (id: string) => ["payin", "order", id] as const,
}

/** A page of GET /admin/payin/transactions (README "Admin API"). */
export type TransactionsPage = {
  transactions: TransactionRow[]
  /** Exact, or an estimate above 10,000 matches: "about N" (count_is_estimate) or "N+" (count_is_lower_bound too). */
  count: number
  count_is_estimate: boolean
  count_is_lower_bound: boolean
  limit: number
  offset: number
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null
}

export function useTransactions(query: URLSearchParams) {
  const qs = query.toString()
  return useQuery({
    queryKey: keys.transactions(qs),
    queryFn: () => adminFetch<TransactionsPage>(`/admin/payin/transactions?${qs}`),
  })
}

/** A plain link: the browser downloads the CSV with the admin's session cookie, streaming it to a file. */
export function exportUrl(query: URLSearchParams): string {
  return adminUrl(`/admin/payin/transactions/export?${query.toString()}`)
}

export function useTransaction(id: string) {
  return useQuery({ queryKey: keys.transaction(id), queryFn: () => adminFetch<DetailView>(`/admin/payin/transactions/${encodeURIComponent(id)}`) })
}

export function useOrderPayins(orderId: string) {
  return useQuery({
    queryKey: keys.order(orderId),
    queryFn: () => adminFetch<{ transactions: TransactionDetail[] }>(`/admin/payin/orders/${encodeURIComponent(orderId)}`),
  })
}

export function useReconcile() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      adminFetch<DetailView & { result: ReconcileResult }>(`/admin/payin/transactions/${encodeURIComponent(id)}/reconcile`, { method: "POST" }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["payin"] }),
  })
}
