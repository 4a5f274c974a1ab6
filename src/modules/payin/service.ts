import { Context } from "@medusajs/framework/types"
import {
  ContainerRegistrationKeys,
  InjectTransactionManager,
  MedusaContext,
  MedusaError,
  MedusaService,
  generateEntityId,
} from "@medusajs/framework/utils"
import {
  PayinPluginOptions,
  PayinProviderOptions,
  PayinProviderOptionsInput,
  parsePluginOptions,
  parseProviderOptions,
  providerOptionsSchema,
} from "../../../medusa-plugin.config"
import { z } from "zod"
import { PayinClient } from "../../client/client"
import type { Transaction } from "../../client/schemas"
import { createHash } from "crypto"
import { PayinSetting, PayinStatusChange, PayinTransaction, PayinWebhookCounter, PayinWebhookEvent } from "./models"
import { PayinSecretError, SecretBox, lastFour, maskKey } from "./secrets"
import {
  ConfigSources,
  OptionSource,
  PluginOverrides,
  PluginSettingsPatch,
  ProviderOverrides,
  ProviderSettingsPatch,
  SETTINGS_TTL_MS,
  SettingsValidationError,
  applyPluginPatch,
  applyProviderPatch,
  mergeProviderOptions,
  pluginScope,
  pluginSources,
  providerScope,
  providerSources,
  zodFields,
} from "./settings"
import { LedgerStatus, ServiceStatus, TransitionResult, nextStatus } from "./transitions"

/** What the plugin module receives: the plugin options plus the provider instances (from withPayin). */
export type PayinModuleOptions = Partial<PayinPluginOptions> & {
  providers?: PayinProviderOptionsInput[]
  sources?: { plugin?: ConfigSources; providers?: Record<string, ConfigSources> }
}

type SettingRow = {
  scope: string
  values: Record<string, unknown> | null
  api_key_encrypted: string | null
  api_key_last4: string | null
  api_key_updated_at: Date | null
  revision: number
  updated_at: Date | null
}

export type LedgerFilters = {
  status?: string[]
  flags?: string[]
  hasFlags?: boolean
  providerId?: string
  orderId?: string
  paymentCollectionIds?: string[]
  q?: string
  limit?: number
  offset?: number
}

/** One provider instance as it runs now: medusa-config with the admin's settings on top. */
export type EffectiveProviderSettings = {
  id: string
  options: PayinProviderOptions
  overrides: ProviderOverrides
  sources: Record<string, OptionSource | null>
  apiKey: { set: boolean; last4: string | null; masked: string | null; source: OptionSource | null; updated_at: Date | null }
  revision: number
  updated_at: Date | null
  /** Why the stored key is unusable (it cannot be decrypted), when it is. */
  error: string | null
}

export type StatusSource = "create" | "webhook" | "lookup" | "store" | "admin"

export type LedgerRow = {
  id: string
  provider_id: string
  session_id: string | null
  service_id: string | null
  status: LedgerStatus
  amount: unknown
  currency_code: string
  fiat_amount: string | null
  payment_collection_id: string | null
  cart_id: string | null
  order_id: string | null
  expires_at: Date | null
  session_deleted_at: Date | null
  store_canceled_at: Date | null
  captured_at: Date | null
  recalculated_at: Date | null
  flags: Record<string, unknown> | null
  refunds: unknown[] | null
  service_data: Record<string, unknown> | null
  payment_page_url: string | null
  requisite: Record<string, unknown> | null
  [key: string]: unknown
}

/**
 * Data the store owns about its pay-ins: the ledger and its status history. Every status change
 * goes through `recordServiceTransaction`, under a row lock, through the one transition table.
 */
class PayinModuleService extends MedusaService({
  PayinTransaction,
  PayinStatusChange,
  PayinWebhookEvent,
  PayinWebhookCounter,
  PayinSetting,
}) {
  protected readonly pluginOptions_: PayinPluginOptions
  protected readonly providers_: Map<string, PayinProviderOptions>
  protected readonly cradle_: Record<string, unknown>
  protected readonly configSources_: NonNullable<PayinModuleOptions["sources"]>

  constructor(container: Record<string, unknown>, options: PayinModuleOptions = {}) {
    // eslint-disable-next-line prefer-rest-params
    super(...arguments)
    this.cradle_ = container
    // Medusa adds its own keys (database, …) to module options: read only the plugin's.
    const { providers = [], reconcileIntervalSeconds, reconcileAfterSeconds, reconcileConcurrency } = options ?? {}
    this.pluginOptions_ = parsePluginOptions({ reconcileIntervalSeconds, reconcileAfterSeconds, reconcileConcurrency })
    this.providers_ = new Map(providers.map((p) => parseProviderOptions(p)).map((p) => [p.id, p]))
    this.configSources_ = options?.sources ?? {}
  }

  /** Plugin options in effect (medusa-config with the admin's overrides, as of the last settings read). */
  get pluginOptions(): PayinPluginOptions {
    const overrides = (this.settingRows_.get(pluginScope)?.values ?? {}) as PluginOverrides
    return { ...this.pluginOptions_, ...overrides }
  }

  /** medusa-config's options of provider instance `id`, or null when this store has no such instance. */
  getConfiguredProviderOptions(id: string): PayinProviderOptions | null {
    return this.providers_.get(id) ?? null
  }

  listProviderInstanceIds(): string[] {
    return [...this.providers_.keys()]
  }

  // -------------------------------------------------------------------------------------------
  // Settings (admin overrides over medusa-config), cached per process for SETTINGS_TTL_MS
  // -------------------------------------------------------------------------------------------

  private settingRows_ = new Map<string, SettingRow>()
  private settingsLoadedAt_ = 0
  private settingsLoading_: Promise<void> | null = null
  private effective_ = new Map<string, EffectiveProviderSettings>()
  private clients_ = new Map<string, { signature: string; client: PayinClient }>()
  private secretBox_: SecretBox | null = null

  /** The encryption secrets from the environment (read once). */
  get secretBox(): SecretBox {
    this.secretBox_ ??= new SecretBox()
    return this.secretBox_
  }

  /**
   * Reads the settings table when the copy in memory is older than `maxAgeMs` (all scopes in one
   * small query; concurrent callers share it). Another instance's change is seen within the TTL.
   */
  async loadSettings(maxAgeMs = SETTINGS_TTL_MS): Promise<void> {
    if (Date.now() - this.settingsLoadedAt_ < maxAgeMs) {
      return
    }
    this.settingsLoading_ ??= (async () => {
      try {
        const result = await this.knex().raw(
          `select scope, values, api_key_encrypted, api_key_last4, api_key_updated_at, revision, updated_at
           from payin_setting where deleted_at is null`,
          []
        )
        const rows = new Map<string, SettingRow>(result.rows.map((r: SettingRow) => [r.scope, r]))
        const changed =
          rows.size !== this.settingRows_.size ||
          [...rows].some(([scope, row]) => this.settingRows_.get(scope)?.revision !== row.revision)
        this.settingRows_ = rows
        if (changed) {
          this.effective_.clear()
        }
        this.settingsLoadedAt_ = Date.now()
      } finally {
        this.settingsLoading_ = null
      }
    })()
    await this.settingsLoading_
  }

  /** Provider instance `id` as it runs now, or null when this store has no such instance. */
  async providerSettings(id: string, maxAgeMs = SETTINGS_TTL_MS): Promise<EffectiveProviderSettings | null> {
    const config = this.providers_.get(id)
    if (!config) {
      return null
    }
    await this.loadSettings(maxAgeMs)
    const cached = this.effective_.get(id)
    if (cached) {
      return cached
    }
    const row = this.settingRows_.get(providerScope(id))
    const overrides = (row?.values ?? {}) as ProviderOverrides
    const configSources = this.configSources_.providers?.[id]
    let apiKey = config.apiKey
    let keySource: OptionSource | null = config.apiKey ? (configSources?.apiKey ?? "config") : null
    let last4 = config.apiKey ? lastFour(config.apiKey) : null
    let error: string | null = null
    if (row?.api_key_encrypted) {
      try {
        apiKey = this.secretBox.decrypt(row.api_key_encrypted, providerScope(id))
        keySource = "admin"
        last4 = row.api_key_last4
      } catch (e) {
        // never fall back silently to another key: webhooks and requests would use the wrong one
        apiKey = undefined
        keySource = "admin"
        last4 = row.api_key_last4
        error = e instanceof Error ? e.message : String(e)
      }
    }
    const sources = providerSources(overrides, configSources, keySource)
    const effective: EffectiveProviderSettings = {
      id,
      options: mergeProviderOptions(config, overrides, apiKey),
      overrides,
      sources,
      apiKey: {
        set: Boolean(apiKey),
        last4,
        masked: maskKey(last4),
        source: keySource,
        updated_at: row?.api_key_encrypted ? row.api_key_updated_at : null,
      },
      revision: row?.revision ?? 0,
      updated_at: row?.updated_at ?? null,
      error,
    }
    this.effective_.set(id, effective)
    return effective
  }

  /** Options of provider instance `id` in effect now (medusa-config + admin), or null for an unknown id. */
  async providerOptions(id: string, maxAgeMs = SETTINGS_TTL_MS): Promise<PayinProviderOptions | null> {
    return (await this.providerSettings(id, maxAgeMs))?.options ?? null
  }

  /** Plugin options in effect now. */
  async effectivePluginOptions(): Promise<PayinPluginOptions> {
    await this.loadSettings()
    return this.pluginOptions
  }

  pluginSettingsView(): { values: PayinPluginOptions; sources: Record<string, OptionSource>; overrides: PluginOverrides } {
    const overrides = (this.settingRows_.get(pluginScope)?.values ?? {}) as PluginOverrides
    return { values: this.pluginOptions, sources: pluginSources(overrides, this.configSources_.plugin), overrides }
  }

  /**
   * A client for instance `id` with its current key and URL (kept while they do not change, so
   * its connection pool is reused). Null when the instance lacks a key or a base URL.
   */
  async clientFor(id: string): Promise<PayinClient | null> {
    const options = await this.providerOptions(id)
    if (!options?.apiKey || !options.baseUrl) {
      return null
    }
    return this.clientWith(options)
  }

  clientWith(options: Pick<PayinProviderOptions, "id" | "apiKey" | "baseUrl" | "timeoutMs" | "signRequests">): PayinClient {
    const signature = createHash("sha256")
      .update([options.apiKey, options.baseUrl, options.timeoutMs, options.signRequests].join("\n"))
      .digest("hex")
    const cached = this.clients_.get(options.id)
    if (cached?.signature === signature) {
      return cached.client
    }
    const client = new PayinClient({
      apiKey: options.apiKey!,
      baseUrl: options.baseUrl!,
      timeoutMs: options.timeoutMs,
      signRequests: options.signRequests,
    })
    this.clients_.set(options.id, { signature, client })
    return client
  }

  /** Saves the admin's changes to instance `id` (validated; the key encrypted). Effective at once here. */
  async updateProviderSettings(id: string, patch: ProviderSettingsPatch, actor?: string): Promise<EffectiveProviderSettings> {
    const config = this.providers_.get(id)
    if (!config) {
      throw new MedusaError(MedusaError.Types.NOT_FOUND, `No pay-in provider instance "${id}" in this store`)
    }
    const scope = providerScope(id)
    await this.loadSettings(0)
    const row = this.settingRows_.get(scope)
    const overrides = applyProviderPatch(config, (row?.values ?? {}) as ProviderOverrides, patch)
    let keyColumns: Record<string, unknown> = {}
    if (patch.apiKey !== undefined) {
      if (patch.apiKey === null) {
        keyColumns = { api_key_encrypted: null, api_key_last4: null, api_key_updated_at: null }
      } else {
        const checked = providerOptionsSchema.shape.apiKey.safeParse(patch.apiKey)
        if (!checked.success || !checked.data) {
          throw new SettingsValidationError(zodFields(checked.error ?? new z.ZodError([]), "apiKey"))
        }
        const parsed = checked.data
        let encrypted: string
        try {
          encrypted = this.secretBox.encrypt(parsed, scope)
        } catch (e) {
          throw new SettingsValidationError([{ path: "apiKey", message: (e as Error).message }])
        }
        keyColumns = { api_key_encrypted: encrypted, api_key_last4: lastFour(parsed), api_key_updated_at: new Date() }
      }
    }
    await this.writeSetting(scope, overrides, keyColumns, actor)
    return (await this.providerSettings(id, 0))!
  }

  async updatePluginSettings(patch: PluginSettingsPatch, actor?: string) {
    await this.loadSettings(0)
    const row = this.settingRows_.get(pluginScope)
    const overrides = applyPluginPatch(this.pluginOptions_, (row?.values ?? {}) as PluginOverrides, patch)
    await this.writeSetting(pluginScope, overrides, {}, actor)
    await this.loadSettings(0)
    return this.pluginSettingsView()
  }

  private async writeSetting(
    scope: string,
    values: Record<string, unknown>,
    keyColumns: Record<string, unknown>,
    actor?: string
  ): Promise<void> {
    const columns = Object.keys(keyColumns)
    await this.knex().raw(
      `insert into payin_setting (id, scope, values, revision, updated_by${columns.map((c) => `, ${c}`).join("")})
       values (?, ?, ?::jsonb, 1, ?${columns.map(() => ", ?").join("")})
       on conflict (scope) where deleted_at is null do update set
         values = excluded.values, revision = payin_setting.revision + 1, updated_by = excluded.updated_by,
         updated_at = now()${columns.map((c) => `, ${c} = excluded.${c}`).join("")}`,
      [generateEntityId(undefined, "payinset"), scope, JSON.stringify(values), actor ?? null, ...columns.map((c) => keyColumns[c])]
    )
    this.settingsLoadedAt_ = 0
    this.effective_.clear()
  }

  /** Start-up check: every key stored from the admin decrypts with the secrets in the environment. */
  static async verifyStoredKeys(
    pg: { raw: (sql: string, bindings: unknown[]) => Promise<{ rows: any[] }> },
    env: Record<string, string | undefined> = process.env,
    { reencrypt = false }: { reencrypt?: boolean } = {}
  ): Promise<number> {
    let rows: { scope: string; api_key_encrypted: string }[]
    try {
      rows = (
        await pg.raw(
          "select scope, api_key_encrypted from payin_setting where deleted_at is null and api_key_encrypted is not null",
          []
        )
      ).rows
    } catch (e) {
      if ((e as { code?: string }).code === "42P01") return 0 // not migrated yet
      throw e
    }
    if (!rows.length) return 0
    const box = new SecretBox(env)
    let reencrypted = 0
    for (const row of rows) {
      let plain: string
      try {
        plain = box.decrypt(row.api_key_encrypted, row.scope)
      } catch (e) {
        const reason = e instanceof PayinSecretError ? e.message : String(e)
        throw new Error(`medusa-plugin-payin: the API key stored from the admin for "${row.scope}" cannot be used: ${reason}`)
      }
      if (reencrypt && box.isStale(row.api_key_encrypted)) {
        // made with PAYIN_ENCRYPTION_KEY_PREVIOUS: move it to the current secret
        await pg.raw(
          "update payin_setting set api_key_encrypted = ?, revision = revision + 1, updated_at = now() where scope = ? and api_key_encrypted = ?",
          [box.encrypt(plain, row.scope), row.scope, row.api_key_encrypted]
        )
        reencrypted++
      }
    }
    return reencrypted
  }

  /**
   * Applies what the service says about a pay-in to its ledger row: the status moves only as the
   * transition table allows, a history row records every change, and the service's data (amount,
   * requisite, dispute fields) is kept. Returns the row and what happened to its status.
   */
  @InjectTransactionManager()
  async recordServiceTransaction(
    ledgerId: string,
    transaction: Transaction,
    source: StatusSource,
    @MedusaContext() sharedContext: Context = {}
  ): Promise<{ row: LedgerRow; transition: TransitionResult }> {
    await this.lockRow(ledgerId, sharedContext)
    const current = (await this.retrievePayinTransaction(ledgerId, {}, sharedContext)) as unknown as LedgerRow
    if (current.service_id && current.service_id !== transaction.id) {
      throw new MedusaError(
        MedusaError.Types.CONFLICT,
        `Pay-in ${current.id} belongs to service transaction ${current.service_id}, not ${transaction.id}`
      )
    }
    const transition = nextStatus(current.status, transaction.status as ServiceStatus)
    const now = new Date()
    const update: Record<string, unknown> = {
      id: ledgerId,
      service_id: transaction.id,
      // the service's data is kept as last seen, even when the status does not move
      service_data: transaction,
      fiat_amount: transaction.fiatAmount,
      fiat_currency: transaction.fiatCurrency,
      bank: transaction.bank ?? null,
      requisite: transaction.requisite ?? null,
    }
    if (transaction.externalPaymentPageUrl) {
      update.payment_page_url = transaction.externalPaymentPageUrl
    }
    if (transition.changed) {
      update.status = transition.to
      update.status_changed_at = now
      if (transition.to === "re_calculation") {
        update.recalculated_at = now
      }
    }
    await this.updatePayinTransactions(update as never, sharedContext)
    if (transition.changed) {
      await this.createPayinStatusChanges(
        {
          transaction_id: ledgerId,
          from_status: transition.from,
          to_status: transition.to,
          source,
          service_data: transaction as unknown as Record<string, unknown>,
        } as never,
        sharedContext
      )
    }
    const row = (await this.retrievePayinTransaction(ledgerId, {}, sharedContext)) as unknown as LedgerRow
    return { row, transition }
  }

  /** Records a store-side event (session deleted, order canceled, captured, a flag) on a ledger row. */
  @InjectTransactionManager()
  async markLedger(
    ledgerId: string,
    change: {
      session_deleted_at?: Date
      store_canceled_at?: Date
      captured_at?: Date
      order_id?: string
      cart_id?: string
      flag?: { name: string; details: Record<string, unknown> }
      note?: string
      refund?: Record<string, unknown>
    },
    @MedusaContext() sharedContext: Context = {}
  ): Promise<LedgerRow> {
    await this.lockRow(ledgerId, sharedContext)
    const current = (await this.retrievePayinTransaction(ledgerId, {}, sharedContext)) as unknown as LedgerRow
    const update: Record<string, unknown> = { id: ledgerId }
    for (const key of ["session_deleted_at", "store_canceled_at", "captured_at"] as const) {
      if (change[key] && !current[key]) {
        update[key] = change[key]
      }
    }
    if (change.order_id && current.order_id !== change.order_id) {
      update.order_id = change.order_id
    }
    if (change.cart_id && current.cart_id !== change.cart_id) {
      update.cart_id = change.cart_id
    }
    if (change.flag && !(current.flags && change.flag.name in current.flags)) {
      update.flags = { ...(current.flags ?? {}), [change.flag.name]: { at: new Date().toISOString(), ...change.flag.details } }
    }
    if (change.refund) {
      update.refunds = [...(current.refunds ?? []), change.refund]
    }
    if (Object.keys(update).length > 1) {
      await this.updatePayinTransactions(update as never, sharedContext)
      if (change.note || change.flag) {
        await this.createPayinStatusChanges(
          {
            transaction_id: ledgerId,
            from_status: current.status,
            to_status: current.status,
            source: "store",
            note: change.note ?? `flag: ${change.flag!.name}`,
          } as never,
          sharedContext
        )
      }
    }
    return (await this.retrievePayinTransaction(ledgerId, {}, sharedContext)) as unknown as LedgerRow
  }

  /**
   * Opens the ledger row of a payment session before its pay-in is requested (hot path of
   * checkout: one statement). Returns the existing row when the session already has one.
   */
  async openPayin(fields: {
    provider_id: string
    session_id: string
    amount: string
    currency_code: string
    method: string | null
    bank: string | null
    payment_collection_id: string | null
  }): Promise<{ id: string; status: LedgerStatus }> {
    const knex = this.knex()
    const inserted = await knex.raw(
      `insert into payin_transaction
         (id, provider_id, session_id, status, amount, raw_amount, currency_code, method, bank, payment_collection_id)
       values (?, ?, ?, 'creating', ?, ?::jsonb, ?, ?, ?, ?)
       on conflict (session_id) where session_id is not null and deleted_at is null do nothing
       returning id, status`,
      [
        generateEntityId(undefined, "payintx"),
        fields.provider_id,
        fields.session_id,
        fields.amount,
        JSON.stringify({ value: fields.amount, precision: 20 }),
        fields.currency_code,
        fields.method,
        fields.bank,
        fields.payment_collection_id,
      ]
    )
    if (inserted.rows.length) {
      return inserted.rows[0]
    }
    const existing = await knex.raw(
      "select id, status from payin_transaction where session_id = ? and deleted_at is null",
      [fields.session_id]
    )
    return existing.rows[0]
  }

  /**
   * Records the service's answer to the creation request (hot path: one statement that moves the
   * row from creating/failed to the service's status and writes the history row). When something
   * else already moved the row (a webhook overtook the answer), the general path applies it.
   */
  async recordCreated(ledgerId: string, transaction: Transaction, expiresAt: Date): Promise<void> {
    const knex = this.knex()
    const result = await knex.raw(
      `with moved as (
         update payin_transaction set
           status = ?, service_id = ?, fiat_amount = ?, fiat_currency = ?, bank = ?, requisite = ?::jsonb,
           service_data = ?::jsonb, payment_page_url = ?, expires_at = ?, status_changed_at = now(),
           last_error = null, updated_at = now()
         where id = ? and status in ('creating', 'failed') and deleted_at is null
         returning id
       )
       insert into payin_status_change (id, transaction_id, from_status, to_status, source, service_data)
       -- the sub-select sees the row as it was before this statement: creating or failed
       select ?, id, (select status from payin_transaction where id = ?), ?, 'create', ?::jsonb from moved
       returning id`,
      [
        transaction.status,
        transaction.id,
        transaction.fiatAmount,
        transaction.fiatCurrency,
        transaction.bank ?? null,
        JSON.stringify(transaction.requisite ?? null),
        JSON.stringify(transaction),
        transaction.externalPaymentPageUrl ?? null,
        expiresAt,
        ledgerId,
        generateEntityId(undefined, "payinsc"),
        ledgerId,
        transaction.status,
        JSON.stringify(transaction),
      ]
    )
    if (!result.rows.length) {
      await this.recordServiceTransaction(ledgerId, transaction, "create")
      await this.updatePayinTransactions({ id: ledgerId, expires_at: expiresAt } as never)
    }
  }

  // -------------------------------------------------------------------------------------------
  // Admin views
  // -------------------------------------------------------------------------------------------

  /** The ledger, newest first, filtered for the admin's transactions page. */
  async listLedger(filters: LedgerFilters): Promise<{ rows: LedgerRow[]; count: number }> {
    const where: string[] = ["deleted_at is null"]
    const bindings: unknown[] = []
    if (filters.status?.length) {
      where.push(`status = any(?::text[])`)
      bindings.push(filters.status)
    }
    if (filters.flags?.length) {
      where.push("jsonb_exists_any(coalesce(flags, '{}'::jsonb), ?::text[])")
      bindings.push(filters.flags)
    }
    if (filters.hasFlags) {
      where.push(`flags is not null and flags <> '{}'::jsonb`)
    }
    if (filters.providerId) {
      where.push("provider_id = ?")
      bindings.push(filters.providerId)
    }
    if (filters.orderId) {
      where.push("order_id = ?")
      bindings.push(filters.orderId)
    }
    if (filters.paymentCollectionIds?.length) {
      where.push("payment_collection_id = any(?::text[])")
      bindings.push(filters.paymentCollectionIds)
    }
    if (filters.q) {
      const like = `${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
      where.push("(id like ? or service_id like ? or session_id like ? or order_id like ? or cart_id like ?)")
      bindings.push(like, like, like, like, like)
    }
    const clause = where.join(" and ")
    const [rows, count] = await Promise.all([
      this.knex().raw(
        `select * from payin_transaction where ${clause} order by created_at desc, id desc limit ? offset ?`,
        [...bindings, filters.limit ?? 20, filters.offset ?? 0]
      ),
      this.knex().raw(`select count(*)::int as count from payin_transaction where ${clause}`, bindings),
    ])
    return { rows: rows.rows, count: count.rows[0].count }
  }

  /** One ledger row with its status history and the webhook deliveries about it. */
  async ledgerDetail(id: string): Promise<{ row: LedgerRow; history: any[]; webhooks: any[] } | null> {
    await this.flushCounters() // duplicates acknowledged from memory are counted in batches
    const found = await this.knex().raw("select * from payin_transaction where id = ? and deleted_at is null", [id])
    const row = found.rows[0] as LedgerRow | undefined
    if (!row) {
      return null
    }
    const [history, webhooks] = await Promise.all([
      this.knex().raw(
        `select id, from_status, to_status, source, note, created_at from payin_status_change
         where transaction_id = ? and deleted_at is null order by created_at, id`,
        [id]
      ),
      row.service_id
        ? this.knex().raw(
            `select id, status, state, attempts, duplicates, last_error, created_at, applied_at, next_attempt_at
             from payin_webhook_event where service_id = ? and provider_id = ? and deleted_at is null
             order by created_at, id`,
            [row.service_id, row.provider_id]
          )
        : Promise.resolve({ rows: [] }),
    ])
    return { row, history: history.rows, webhooks: webhooks.rows }
  }

  /** Webhook health of one provider instance: deliveries accepted, duplicated, refused, failing. */
  async webhookHealth(providerId: string): Promise<{
    accepted: number
    duplicates: number
    rejected: number
    failed: number
    last_delivery_at: Date | null
    last_failure_at: Date | null
    last_failure_reason: string | null
  }> {
    await this.flushCounters()
    const [inbox, failed, counter] = await Promise.all([
      this.knex().raw(
        `select count(*)::int as accepted, coalesce(sum(duplicates), 0)::int as duplicates,
                max(greatest(created_at, updated_at)) as last_delivery_at
         from payin_webhook_event where provider_id = ? and deleted_at is null`,
        [providerId]
      ),
      this.knex().raw(
        `select count(*) filter (where state = 'failed')::int as failed,
                max(updated_at) filter (where last_error is not null) as last_at,
                (array_agg(last_error order by updated_at desc) filter (where last_error is not null))[1] as last_error
         from payin_webhook_event where provider_id = ? and deleted_at is null`,
        [providerId]
      ),
      this.knex().raw(
        `select rejected, last_rejected_at, last_rejection_reason from payin_webhook_counter
         where provider_id = ? and deleted_at is null`,
        [providerId]
      ),
    ])
    const i = inbox.rows[0]
    const f = failed.rows[0]
    const c = counter.rows[0] ?? { rejected: 0, last_rejected_at: null, last_rejection_reason: null }
    const rejectedLater = c.last_rejected_at && (!f.last_at || new Date(c.last_rejected_at) > new Date(f.last_at))
    return {
      accepted: i.accepted,
      duplicates: i.duplicates,
      rejected: c.rejected,
      failed: f.failed,
      last_delivery_at: i.last_delivery_at,
      last_failure_at: rejectedLater ? c.last_rejected_at : (f.last_at ?? null),
      last_failure_reason: rejectedLater ? c.last_rejection_reason : (f.last_error ?? null),
    }
  }

  // -------------------------------------------------------------------------------------------
  // Webhook inbox
  // -------------------------------------------------------------------------------------------

  /**
   * Stores a verified callback (one statement). A callback whose canonical payload was seen
   * before only bumps that entry's duplicate count. Returns the entry and whether it is new.
   */
  async receiveWebhook(
    providerId: string,
    transaction: Transaction,
    rawBody: string
  ): Promise<{ id: string; state: "received" | "applied" | "failed"; inserted: boolean }> {
    const hash = createHash("sha256").update(providerId).update("\n").update(canonicalJson(transaction)).digest("hex")
    // A callback this process saw applied: acknowledged from memory, its count added in batches.
    const known = this.appliedWebhooks_.get(hash)
    if (known) {
      this.pendingDuplicates_.set(known, (this.pendingDuplicates_.get(known) ?? 0) + 1)
      this.scheduleFlush()
      return { id: known, state: "applied", inserted: false }
    }
    const result = await this.knex().raw(
      `insert into payin_webhook_event (id, provider_id, service_id, status, payload_hash, raw_body)
       values (?, ?, ?, ?, ?, ?)
       on conflict (provider_id, payload_hash) where deleted_at is null
       do update set duplicates = payin_webhook_event.duplicates + 1, updated_at = now()
       returning id, state, (xmax = 0) as inserted`,
      [generateEntityId(undefined, "payinwh"), providerId, transaction.id, transaction.status, hash, rawBody]
    )
    const row = result.rows[0]
    if (row.state === "applied") {
      this.rememberApplied(hash, row.id)
    }
    this.hashes_.set(row.id, hash)
    return row
  }

  /** Hashes of callbacks applied in this process (bounded), for the duplicate fast path. */
  private appliedWebhooks_ = new Map<string, string>()
  private hashes_ = new Map<string, string>()
  private pendingDuplicates_ = new Map<string, number>()

  private rememberApplied(hash: string, id: string): void {
    this.appliedWebhooks_.set(hash, id)
    if (this.appliedWebhooks_.size > 20_000) {
      const oldest = this.appliedWebhooks_.keys().next().value
      if (oldest !== undefined) this.appliedWebhooks_.delete(oldest)
    }
  }

  /** Records the outcome of applying an inbox entry; a failure is retried with backoff. */
  async settleWebhook(id: string, outcome: { ok: true; result: unknown } | { ok: false; error: string }): Promise<void> {
    const hash = this.hashes_.get(id)
    this.hashes_.delete(id)
    if (outcome.ok && hash) {
      this.rememberApplied(hash, id)
    }
    if (outcome.ok) {
      await this.knex().raw(
        `update payin_webhook_event set state = 'applied', attempts = attempts + 1, applied_at = now(),
           result = ?::jsonb, last_error = null, next_attempt_at = null, updated_at = now()
         where id = ?`,
        [JSON.stringify(outcome.result ?? null), id]
      )
    } else {
      // 30 s, 1, 2, 4 … minutes, at most an hour between attempts
      await this.knex().raw(
        `update payin_webhook_event set state = 'failed', attempts = attempts + 1, last_error = ?,
           next_attempt_at = now() + least(interval '1 hour', interval '30 seconds' * power(2, attempts)),
           updated_at = now()
         where id = ?`,
        [outcome.error.slice(0, 2000), id]
      )
    }
  }

  /** Inbox entries due for another attempt: failed ones whose time came, and received ones left behind by a crash. */
  async listWebhooksToRetry(limit: number, stuckAfterSeconds = 60): Promise<{ id: string; provider_id: string; raw_body: string }[]> {
    const result = await this.knex().raw(
      `select id, provider_id, raw_body from payin_webhook_event
       where deleted_at is null and (
         (state = 'failed' and next_attempt_at <= now()) or
         (state = 'received' and created_at < now() - (? * interval '1 second')))
       order by created_at limit ?`,
      [stuckAfterSeconds, limit]
    )
    return result.rows
  }

  private rejected_ = new Map<string, { count: number; reason: string; at: Date }>()
  private rejectedFlush_: NodeJS.Timeout | null = null

  /**
   * Counts a webhook refused before verification (bad signature, body). Counted in memory and
   * added to the table at most every few seconds: forged traffic costs one row per instance.
   */
  countRejectedWebhook(providerId: string, reason: string): void {
    const entry = this.rejected_.get(providerId) ?? { count: 0, reason, at: new Date() }
    entry.count++
    entry.reason = reason
    entry.at = new Date()
    this.rejected_.set(providerId, entry)
    this.scheduleFlush()
  }

  private scheduleFlush(): void {
    if (!this.rejectedFlush_) {
      this.rejectedFlush_ = setTimeout(() => void this.flushCounters(), 2000)
      this.rejectedFlush_.unref?.()
    }
  }

  /** Writes the counters kept in memory: rejected requests, duplicates acknowledged from memory. */
  async flushCounters(): Promise<void> {
    if (this.rejectedFlush_) {
      clearTimeout(this.rejectedFlush_)
      this.rejectedFlush_ = null
    }
    const duplicates = [...this.pendingDuplicates_.entries()]
    this.pendingDuplicates_.clear()
    for (const [id, count] of duplicates) {
      await this.knex()
        .raw("update payin_webhook_event set duplicates = duplicates + ?, updated_at = now() where id = ?", [count, id])
        .catch(() => undefined)
    }
    const pending = [...this.rejected_.entries()]
    this.rejected_.clear()
    for (const [providerId, entry] of pending) {
      try {
        await this.knex().raw(
          `insert into payin_webhook_counter (id, provider_id, rejected, last_rejected_at, last_rejection_reason)
           values (?, ?, ?, ?, ?)
           on conflict (provider_id) where deleted_at is null do update set
             rejected = payin_webhook_counter.rejected + excluded.rejected,
             last_rejected_at = excluded.last_rejected_at,
             last_rejection_reason = excluded.last_rejection_reason, updated_at = now()`,
          [generateEntityId(undefined, "payinwc"), providerId, entry.count, entry.at, entry.reason]
        )
      } catch {
        // the counter is informative; losing a batch loses no payment
      }
    }
  }

  private knex(): {
    raw: (sql: string, bindings: unknown[]) => Promise<{ rows: any[] }>
  } {
    return this.cradle_[ContainerRegistrationKeys.PG_CONNECTION] as never
  }

  /** Serialises concurrent writers of one ledger row, across processes (a PostgreSQL row lock). */
  private async lockRow(ledgerId: string, sharedContext: Context): Promise<void> {
    const manager = sharedContext.transactionManager as { execute?: (sql: string, params: unknown[]) => Promise<unknown> }
    if (manager?.execute) {
      await manager.execute("select id from payin_transaction where id = ? for update", [ledgerId])
    }
  }
}

/** JSON with sorted keys: the same data gives the same bytes, however the sender ordered it. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v
  )
}

export default PayinModuleService
