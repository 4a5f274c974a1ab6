import { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { payinProviderId } from "../../../provider-id"
import { isDisputeStatus } from "../../../status"
import { PayinServiceError } from "../../../client/errors"
import type PayinModuleService from "../../../modules/payin/service"
import type { LedgerRow } from "../../../modules/payin/service"
import { type EffectiveProviderSettings, SettingsConflictError } from "../../../modules/payin/settings/store"
import { ENCRYPTION_ENV } from "../../../modules/payin/settings/secrets"
import { SettingsValidationError } from "../../../modules/payin/settings/overrides"
import { invalid, notFound, payinModule } from "../../utils"
import { webhookBaseUrl, webhookPath, webhookUrl } from "../../../modules/payin/webhook-url"

/** Runs a settings change; validation errors become 400s naming the field. */
export async function settingsChange<T>(res: MedusaResponse, fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn()
  } catch (error) {
    if (error instanceof SettingsValidationError) {
      invalid(res, error.fields)
      return null
    }
    if (error instanceof SettingsConflictError) {
      res.status(409).json({ type: "conflict", code: "settings_conflict", message: error.message, revision: error.current })
      return null
    }
    if (MedusaError.isMedusaError(error) && (error as MedusaError).type === MedusaError.Types.NOT_FOUND) {
      notFound(res, (error as Error).message)
      return null
    }
    throw error
  }
}

/** A provider instance for the admin: effective values, where each came from, the key masked. */
export function providerView(req: MedusaRequest, settings: EffectiveProviderSettings) {
  const { apiKey: _never, id: _id, ...values } = settings.options
  return {
    id: settings.id,
    provider_id: payinProviderId(settings.id),
    webhook_path: webhookPath(settings.id),
    webhook_url: webhookUrl(webhookBaseUrl(req), settings.id),
    api_key: {
      set: settings.apiKey.set,
      last4: settings.apiKey.last4,
      masked: settings.apiKey.masked,
      source: settings.apiKey.source,
      updated_at: settings.apiKey.updated_at,
      error: settings.error,
    },
    values: { ...values, baseUrl: values.baseUrl ?? null },
    sources: settings.sources,
    overrides: settings.overrides,
    configured: Boolean(settings.options.apiKey && settings.options.baseUrl),
    revision: settings.revision,
    updated_at: settings.updated_at,
  }
}

export async function allSettingsView(req: MedusaRequest) {
  const payin = payinModule(req)
  await payin.settings.load(0)
  const providers = await Promise.all(payin.settings.instanceIds().map((id) => payin.settings.provider(id)))
  return {
    encryption: { configured: payin.settings.secretBox.configured, env: ENCRYPTION_ENV },
    plugin: payin.settings.pluginView(),
    providers: providers.filter((p): p is EffectiveProviderSettings => p !== null).map((p) => providerView(req, p)),
  }
}

const iso = (value: unknown) => (value ? new Date(value as string).toISOString() : null)

export function transactionRow(row: LedgerRow) {
  const rawAmount = (row as { raw_amount?: { value?: string } }).raw_amount
  return {
    id: row.id,
    provider_id: row.provider_id,
    service_id: row.service_id,
    session_id: row.session_id,
    status: row.status,
    amount: rawAmount?.value ?? String(row.amount),
    currency_code: row.currency_code,
    fiat_amount: row.fiat_amount,
    fiat_currency: (row.fiat_currency as string | null) ?? null,
    method: (row.method as string | null) ?? null,
    bank: (row.bank as string | null) ?? null,
    order_id: row.order_id,
    cart_id: row.cart_id,
    payment_collection_id: row.payment_collection_id,
    expires_at: iso(row.expires_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    status_changed_at: iso(row.status_changed_at),
    paid_at: iso(row.paid_at),
    captured_at: iso(row.captured_at),
    disputed_at: iso(row.disputed_at),
    store_canceled_at: iso(row.store_canceled_at),
    pay_again_until: iso(row.pay_again_until),
    via_pay_again: Boolean(row.via_pay_again),
    session_deleted_at: iso(row.session_deleted_at),
    recalculated_at: iso(row.recalculated_at),
    flags: row.flags ?? null,
    last_error: (row.last_error as string | null) ?? null,
    payment_page_url: row.payment_page_url,
  }
}

export function transactionDetail(row: LedgerRow) {
  const data = (row.service_data ?? {}) as Record<string, unknown>
  const text = (key: string) => (typeof data[key] === "string" && data[key] !== "" ? (data[key] as string) : null)
  const disputeFields = {
    merchant_check_url: text("disputeMerchantCheckUrl"),
    trader_check_url: text("disputeTraderCheckUrl"),
    merchant_fiat_amount: text("disputeMerchantFiatAmount"),
    trader_fiat_amount: text("disputeTraderFiatAmount"),
  }
  const hasDispute =
    isDisputeStatus(row.status) ||
    Boolean(row.recalculated_at) ||
    Boolean(disputeFields.merchant_check_url || disputeFields.trader_check_url) ||
    [disputeFields.merchant_fiat_amount, disputeFields.trader_fiat_amount].some((a) => a !== null && Number(a) !== 0)
  const requisite = row.requisite as Record<string, unknown> | null
  return {
    ...transactionRow(row),
    requisite: requisite
      ? {
          id: requisite.id ?? null,
          bank: requisite.bank ?? null,
          ownerName: requisite.ownerName ?? null,
          requisites: requisite.requisites ?? null,
          sbpNumber: requisite.sbpNumber ?? null,
          fiatCurrency: requisite.fiatCurrency ?? null,
        }
      : null,
    crypto_amount: text("cryptoAmount"),
    crypto_currency: text("cryptoCurrency"),
    crypto_network: text("cryptoNetwork"),
    currency_rate: text("currencyRate"),
    merchant_fee: text("merchantFee"),
    dispute: hasDispute ? disputeFields : null,
    refunds: row.refunds ?? null,
  }
}

export async function detailView(payin: PayinModuleService, id: string) {
  await payin.inbox.flush() // duplicates acknowledged from memory are counted in batches
  const found = await payin.queries.detail(id)
  if (!found) {
    return null
  }
  const notifications = await payin.notifications.of({ transactionId: found.row.id, orderId: found.row.order_id })
  return {
    transaction: transactionDetail(found.row),
    history: found.history.map((h: { created_at: unknown }) => ({ ...h, created_at: iso(h.created_at) })),
    notifications: notifications.map((n) => ({
      id: n.id,
      order_id: n.order_id,
      kind: n.kind,
      status: n.status,
      attempts: n.attempts,
      last_error: n.last_error,
      next_attempt_at: iso(n.next_attempt_at),
      sent_at: iso(n.sent_at),
      notification_id: n.notification_id,
      trigger: n.trigger,
      created_at: iso(n.created_at),
    })),
    webhooks: found.webhooks.map((w: Record<string, unknown>) => ({
      ...w,
      created_at: iso(w.created_at),
      applied_at: iso(w.applied_at),
      next_attempt_at: iso(w.next_attempt_at),
    })),
  }
}

/** A service error for the admin: 502 with its kind and merchant-safe message (never the key). */
export function serviceError(res: MedusaResponse, error: unknown): boolean {
  if (error instanceof PayinServiceError) {
    res.status(502).json({ type: "service_error", kind: error.kind, code: error.code ?? null, message: error.message })
    return true
  }
  return false
}
