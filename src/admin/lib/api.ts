// Typed access to the plugin's admin API (/admin/payin/...) with the dashboard's react-query.
// The settings' shapes are the option schemas' (type-only imports: nothing of the module is
// bundled into the admin).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import type { PayinPluginOptions, PayinProviderOptions } from "../../modules/payin/settings/options"
import type { CONFIG_ONLY_FIELDS, OptionSource } from "../../modules/payin/settings/overrides"
import type { Insights } from "../../modules/payin/insights/insights"
import type { LedgerStatus } from "../../status"
import type { FieldPath } from "./settings-form"

export type { OptionSource }

/** The fields the admin sets on a provider instance: every option but the config-only ones. */
export type ProviderFieldPath = FieldPath<Omit<PayinProviderOptions, (typeof CONFIG_ONLY_FIELDS)[number]>>
/** The plugin-wide fields: every plugin option. */
export type PluginFieldPath = FieldPath<PayinPluginOptions>

declare const __BACKEND_URL__: string | undefined

const base = (typeof __BACKEND_URL__ !== "undefined" && __BACKEND_URL__ ? __BACKEND_URL__ : "").replace(/\/$/, "")

export type FieldError = { path: string; message: string }

/** An error answer of the admin API, with the fields a 400 names. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: FieldError[] = [],
    readonly body: Record<string, unknown> = {}
  ) {
    super(message)
  }
}

export async function adminFetch<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    credentials: "include",
    headers: init.body === undefined ? { accept: "application/json" } : { "content-type": "application/json", accept: "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const text = await res.text()
  let json: Record<string, unknown> = {}
  try {
    json = text ? JSON.parse(text) : {}
  } catch {
    json = { message: text }
  }
  if (!res.ok) {
    throw new ApiError(res.status, String(json.message ?? res.statusText), (json.fields as FieldError[]) ?? [], json)
  }
  return json as T
}

/** A provider instance's effective options as the API answers them: never the key, nor the instance id. */
export type ProviderValues = Omit<PayinProviderOptions, "apiKey" | "id" | "baseUrl"> & { baseUrl: string | null }

export type ProviderSettings = {
  id: string
  provider_id: string
  webhook_path: string
  webhook_url: string
  api_key: { set: boolean; last4: string | null; masked: string | null; source: OptionSource | null; updated_at: string | null; error: string | null }
  values: ProviderValues
  sources: Record<string, OptionSource | null>
  overrides: Record<string, unknown>
  configured: boolean
  /** Sent back with every save: a stale one is refused (409) instead of undoing another admin's change. */
  revision: number
  updated_at: string | null
}

export type PluginSettings = {
  values: PayinPluginOptions
  sources: Record<string, OptionSource>
  overrides: Record<string, unknown>
  revision: number
}

export type AllSettings = {
  encryption: { configured: boolean; env: string }
  plugin: PluginSettings
  providers: ProviderSettings[]
}

export type TestResult =
  | { ok: true; base_url: string; duration_ms: number; banks: { name: string; methods: string[] }[]; currencies: { fiatCurrency: string; cryptoCurrency?: string; rate?: string }[] }
  | {
      ok: false
      base_url: string | null
      duration_ms: number
      error: { kind: string; status?: number; code?: string; message: string }
      outgoing_address: string | null
      server_addresses: string[]
    }

export type WebhookHealth = {
  id: string
  provider_id: string
  webhook_url: string
  accepted: number
  duplicates: number
  rejected: number
  failed: number
  last_delivery_at: string | null
  last_failure_at: string | null
  last_failure_reason: string | null
}

export type ReconciliationHealth = {
  last_run_at: string | null
  last_report: Record<string, number> | null
  runs: number
  interval_seconds: number
  overdue: boolean
}

export type RetentionHealth = {
  webhook_retention_days: number
  webhook_counter_retention_days: number
  history_retention_days: number
  last_run_at: string | null
  last_report: { inboxPruned?: number; countersPruned?: number; historyPruned?: number; more?: boolean } | null
  runs: number
}

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

// ---------------------------------------------------------------------------------------------
// Hooks
// ---------------------------------------------------------------------------------------------

const keys = {
  settings: ["payin", "settings"] as const,
  health: ["payin", "webhook-health"] as const,
  transactions: (query: string) => ["payin", "transactions", query] as const,
  transaction: (id: string) => ["payin", "transaction", id] as const,
  order: (id: string) => ["payin", "order", id] as const,
  insights: (query: string) => ["payin", "insights", query] as const,
}

export function useSettings() {
  return useQuery({ queryKey: keys.settings, queryFn: () => adminFetch<AllSettings>("/admin/payin/settings") })
}

export function useWebhookHealth() {
  return useQuery({
    queryKey: keys.health,
    queryFn: () => adminFetch<{ providers: WebhookHealth[]; reconciliation: ReconciliationHealth; retention: RetentionHealth }>("/admin/payin/webhook-health"),
    refetchInterval: 30_000,
  })
}

export function useSaveProvider(id: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (patch: Record<string, unknown>) =>
      adminFetch<ProviderSettings>(`/admin/payin/settings/${encodeURIComponent(id)}`, { method: "POST", body: patch }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.settings }),
  })
}

export function useSavePlugin() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (patch: Record<string, unknown>) => adminFetch<AllSettings>("/admin/payin/settings", { method: "POST", body: patch }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.settings }),
  })
}

export function useTestConnection(id: string) {
  return useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      adminFetch<TestResult>(`/admin/payin/settings/${encodeURIComponent(id)}/test-connection`, { method: "POST", body }),
  })
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

/**
 * The CSV export's URL (GET /admin/payin/transactions/export): the browser downloads it through
 * a plain link with the admin's session cookie, streaming it to a file.
 */
export function exportUrl(query: URLSearchParams): string {
  return `${base}/admin/payin/transactions/export?${query.toString()}`
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

export type { Insights }

/** GET /admin/payin/insights (from, to, provider_id): the figures of a period. */
export function useInsights(query: URLSearchParams) {
  const qs = query.toString()
  return useQuery({ queryKey: keys.insights(qs), queryFn: () => adminFetch<Insights>(`/admin/payin/insights?${qs}`) })
}

/** The same figures as a CSV download (a plain link: the browser sends the session cookie). */
export function insightsCsvUrl(query: URLSearchParams): string {
  const q = new URLSearchParams(query)
  q.set("format", "csv")
  return `${base}/admin/payin/insights?${q}`
}
