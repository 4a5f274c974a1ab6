// The settings' part of the admin API. Their shapes are the option schemas' (type-only imports:
// nothing of the module is bundled into the admin).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import type { PayinPluginOptions, PayinProviderOptions } from "../../modules/payin/settings/options"
import type { CONFIG_ONLY_FIELDS, OptionSource } from "../../modules/payin/settings/overrides"
import { adminFetch } from "./api"
import type { FieldPath } from "./settings-form"

export type { OptionSource }

/** The fields the admin sets on a provider instance: every option but the config-only ones. */
export type ProviderFieldPath = FieldPath<Omit<PayinProviderOptions, (typeof CONFIG_ONLY_FIELDS)[number]>>
/** The plugin-wide fields: every plugin option. */
export type PluginFieldPath = FieldPath<PayinPluginOptions>

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

const keys = {
  settings: ["payin", "settings"] as const,
  health: ["payin", "webhook-health"] as const,
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
