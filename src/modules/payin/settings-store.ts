import { logger as medusaLogger } from "@medusajs/framework/logger"
import { MedusaError, generateEntityId } from "@medusajs/framework/utils"
import { createHash } from "crypto"
import { z } from "zod"
import { Resolve, refusedHost } from "../../client/address"
import { PayinClient } from "../../client/client"
import { PayinServiceError } from "../../client/errors"
import type { Db } from "./db"
import { PayinPluginOptions, PayinProviderOptions, allowsPrivateBaseUrl, providerOptionsSchema } from "./options"
import { PayinSecretError, SecretBox, lastFour, maskKey } from "./secrets"
import {
  API_KEY_ORIGIN,
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
  originOf,
  pluginScope,
  pluginSources,
  providerScope,
  providerSources,
  splitProviderValues,
  zodFields,
} from "./settings"

type Logger = { info(message: string): void; warn(message: string): void }

type SettingRow = {
  scope: string
  values: Record<string, unknown> | null
  api_key_encrypted: string | null
  api_key_last4: string | null
  api_key_updated_at: Date | null
  revision: number
  updated_at: Date | null
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
  /**
   * Why the key is not used, when it is not: the stored key cannot be decrypted, or the base URL's
   * origin is not the one the key was entered for (a key is only sent to its own origin).
   */
  error: string | null
}

/** The 400 of a save that would send a key to an origin it was not entered for. */
const apiKeyRequired = (message: string) =>
  new SettingsValidationError([{ path: "apiKey", code: "api_key_required", message }])

/** A save based on a revision another admin has replaced since (answered 409). */
export class SettingsConflictError extends Error {
  constructor(
    readonly current: number,
    readonly given: number
  ) {
    super(`The settings were changed by someone else (revision ${current}, yours ${given}): reload them and save again`)
    this.name = "SettingsConflictError"
  }
}

/**
 * The settings in effect: medusa-config's options with the admin's overrides (table
 * payin_setting) on top, the stored API key decrypted. Every instance reads the table again when
 * its copy is older than SETTINGS_TTL_MS, and at once when a webhook signature or the service
 * refuses its key; a change saved here is in effect here at once.
 */
export class SettingsStore {
  private rows_ = new Map<string, SettingRow>()
  private loadedAt_ = 0
  private loading_: Promise<void> | null = null
  private effective_ = new Map<string, EffectiveProviderSettings>()
  private clients_ = new Map<string, { signature: string; client: PayinClient }>()
  private secretBox_: SecretBox | null = null
  /** Where origin changes and unusable keys are reported (never a key). */
  logger: Logger
  /** Resolves a typed base URL's host for the address check (DNS; replaced in tests). */
  resolveHost: Resolve | undefined = undefined

  constructor(
    private readonly db: () => Db,
    private readonly pluginConfig: PayinPluginOptions,
    private readonly providers: Map<string, PayinProviderOptions>,
    private readonly configSources: { plugin?: ConfigSources; providers?: Record<string, ConfigSources> },
    logger?: Logger
  ) {
    this.logger = logger ?? medusaLogger
  }

  /** The encryption secrets from the environment (read once). */
  get secretBox(): SecretBox {
    this.secretBox_ ??= new SecretBox()
    return this.secretBox_
  }

  /** Plugin options in effect (medusa-config with the admin's overrides, as of the last read). */
  get pluginOptions(): PayinPluginOptions {
    return { ...this.pluginConfig, ...((this.rows_.get(pluginScope)?.values ?? {}) as PluginOverrides) }
  }

  /** medusa-config's options of provider instance `id`, or null when this store has no such instance. */
  configuredProvider(id: string): PayinProviderOptions | null {
    return this.providers.get(id) ?? null
  }

  instanceIds(): string[] {
    return [...this.providers.keys()]
  }

  /** Reads the table when the copy in memory is older than `maxAgeMs` (concurrent callers share one read). */
  async load(maxAgeMs = SETTINGS_TTL_MS): Promise<void> {
    if (Date.now() - this.loadedAt_ < maxAgeMs) {
      return
    }
    this.loading_ ??= (async () => {
      try {
        const result = await this.db().raw(
          `select scope, values, api_key_encrypted, api_key_last4, api_key_updated_at, revision, updated_at
           from payin_setting where deleted_at is null`,
          []
        )
        const rows = new Map<string, SettingRow>(result.rows.map((r: SettingRow) => [r.scope, r]))
        const changed =
          rows.size !== this.rows_.size || [...rows].some(([scope, row]) => this.rows_.get(scope)?.revision !== row.revision)
        this.rows_ = rows
        if (changed) {
          this.effective_.clear()
        }
        this.loadedAt_ = Date.now()
      } finally {
        this.loading_ = null
      }
    })()
    await this.loading_
  }

  /** Provider instance `id` as it runs now, or null when this store has no such instance. */
  async provider(id: string, maxAgeMs = SETTINGS_TTL_MS): Promise<EffectiveProviderSettings | null> {
    const config = this.providers.get(id)
    if (!config) {
      return null
    }
    await this.load(maxAgeMs)
    const cached = this.effective_.get(id)
    if (cached) {
      return cached
    }
    const row = this.rows_.get(providerScope(id))
    const { overrides, keyOrigin } = splitProviderValues(row?.values)
    const configSources = this.configSources.providers?.[id]
    // a key is only sent to the origin it was given for: medusa-config's key to medusa-config's
    // base URL, a key saved from the admin to the base URL it was entered for
    const origin = originOf(overrides.baseUrl ?? config.baseUrl)
    let apiKey = config.apiKey
    let keySource: OptionSource | null = config.apiKey ? (configSources?.apiKey ?? "config") : null
    let last4 = config.apiKey ? lastFour(config.apiKey) : null
    let error: string | null = null
    if (config.apiKey && !row?.api_key_encrypted && origin !== originOf(config.baseUrl)) {
      apiKey = undefined
      error =
        `the API key from ${keySource === "env" ? "the environment" : "medusa-config"} is only sent to the base URL configured with it ` +
        `(${originOf(config.baseUrl) ?? "none"}), and the base URL is now ${origin}: enter the API key for it`
      this.logger.warn(`payin: provider instance "${id}" has no usable API key: ${error}`)
    }
    if (row?.api_key_encrypted) {
      keySource = "admin"
      last4 = row.api_key_last4
      try {
        const plain = this.secretBox.decrypt(row.api_key_encrypted, providerScope(id))
        let bound = keyOrigin
        if (bound === undefined && origin) {
          // saved before keys were bound to an origin: bound now to the origin in effect
          bound = origin
          await this.bindStoredKey(id, row, origin)
        }
        if (bound !== undefined && bound !== origin) {
          apiKey = undefined
          error =
            `the API key saved from the admin was entered for ${bound ?? "no base URL"}, and the base URL is now ` +
            `${origin ?? "not set"}: it is not sent to another origin; enter the API key again`
          this.logger.warn(`payin: provider instance "${id}" has no usable API key: ${error}`)
        } else {
          apiKey = plain
        }
      } catch (e) {
        // never fall back silently to another key: webhooks and requests would use the wrong one
        apiKey = undefined
        error = e instanceof Error ? e.message : String(e)
      }
    }
    const effective: EffectiveProviderSettings = {
      id,
      options: mergeProviderOptions(config, overrides, apiKey),
      overrides,
      sources: providerSources(overrides, configSources, keySource),
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

  /** Binds a key stored before keys were bound to an origin to `origin` (once; no new revision). */
  private async bindStoredKey(id: string, row: SettingRow, origin: string): Promise<void> {
    row.values = { ...(row.values ?? {}), [API_KEY_ORIGIN]: origin }
    try {
      await this.db().raw(
        `update payin_setting set values = coalesce(values, '{}'::jsonb) || jsonb_build_object(?::text, ?::text)
         where scope = ? and api_key_encrypted = ? and deleted_at is null and not jsonb_exists(coalesce(values, '{}'::jsonb), ?)`,
        [API_KEY_ORIGIN, origin, providerScope(id), row.api_key_encrypted, API_KEY_ORIGIN]
      )
      this.logger.info(`payin: the API key of provider instance "${id}" saved from the admin is now bound to ${origin}`)
    } catch (e) {
      this.logger.warn(`payin: could not bind the API key of provider instance "${id}" to ${origin}: ${(e as Error).message}`)
    }
  }

  /**
   * Why `baseUrl`, typed in the admin for instance `id`, may not be called: its host is, or
   * resolves to, a private, loopback, link-local or metadata address. Null when it may: a public
   * host, medusa-config's own base URL origin, or an instance allowed private addresses
   * (allowPrivateBaseUrl, or a development / test NODE_ENV).
   */
  async baseUrlRefusal(id: string, baseUrl: string): Promise<string | null> {
    if (!this.guardsAddresses(id, baseUrl)) return null
    let host: string
    try {
      host = new URL(baseUrl).hostname
    } catch {
      return "baseUrl is not a URL"
    }
    const reason = await refusedHost(host, this.resolveHost)
    return reason
      ? `baseUrl must be a public address: ${reason} (private addresses only for an instance with allowPrivateBaseUrl)`
      : null
  }

  /** Whether calls of instance `id` to `baseUrl` must refuse non-public addresses (a base URL from the admin). */
  guardsAddresses(id: string, baseUrl: string | null | undefined): boolean {
    const config = this.providers.get(id)
    if (!config || allowsPrivateBaseUrl(config)) return false
    return originOf(baseUrl) !== originOf(config.baseUrl)
  }

  /** Options of provider instance `id` in effect now, or null for an unknown id. */
  async providerOptions(id: string, maxAgeMs = SETTINGS_TTL_MS): Promise<PayinProviderOptions | null> {
    return (await this.provider(id, maxAgeMs))?.options ?? null
  }

  async plugin(): Promise<PayinPluginOptions> {
    await this.load()
    return this.pluginOptions
  }

  pluginView(): { values: PayinPluginOptions; sources: Record<string, OptionSource>; overrides: PluginOverrides; revision: number } {
    const row = this.rows_.get(pluginScope)
    const overrides = (row?.values ?? {}) as PluginOverrides
    return {
      values: this.pluginOptions,
      sources: pluginSources(overrides, this.configSources.plugin),
      overrides,
      revision: row?.revision ?? 0,
    }
  }

  /**
   * The instances that are one merchant account with `id`: the same API key and base URL in
   * effect (`id` itself included). A callback verified with `id`'s key may touch their pay-ins.
   */
  async sameAccount(id: string): Promise<string[]> {
    const mine = await this.providerOptions(id)
    if (!mine?.apiKey) return []
    const all = await Promise.all(this.instanceIds().map(async (other) => [other, await this.providerOptions(other)] as const))
    return all.filter(([, o]) => o?.apiKey === mine.apiKey && o?.baseUrl === mine.baseUrl).map(([other]) => other)
  }

  /** A client for instance `id` with its current key and URL, or null when it lacks either. */
  async clientFor(id: string): Promise<PayinClient | null> {
    const options = await this.providerOptions(id)
    if (!options?.apiKey || !options.baseUrl) {
      return null
    }
    return this.clientWith(options)
  }

  /**
   * Calls the service as instance `id`. A 401 means the key may have been rotated from the admin
   * on another process: the settings are read again at once and, when the key or URL changed, the
   * call is made once more with them (a refused request did nothing). The one place this rule
   * lives for every outgoing call of a configured instance: checkout, lookups, bank lists.
   */
  async withClient<T>(id: string, call: (client: PayinClient, options: PayinProviderOptions) => Promise<T>): Promise<T> {
    const settings = await this.provider(id)
    const options = settings?.options
    if (!options?.apiKey || !options.baseUrl) {
      throw new PayinServiceError(
        "unauthorized",
        `The provider instance "${id}" has no API key or base URL configured${settings?.error ? ` (${settings.error})` : ""}`
      )
    }
    try {
      return await call(this.clientWith(options), options)
    } catch (error) {
      if (!(error instanceof PayinServiceError) || error.kind !== "unauthorized") throw error
      const fresh = await this.providerOptions(id, 0)
      if (!fresh?.apiKey || !fresh.baseUrl || (fresh.apiKey === options.apiKey && fresh.baseUrl === options.baseUrl)) throw error
      return call(this.clientWith(fresh), fresh)
    }
  }

  /** The instance's client, kept while its key and URL do not change (its connections are reused). */
  clientWith(options: Pick<PayinProviderOptions, "id" | "apiKey" | "baseUrl" | "timeoutMs" | "signRequests">): PayinClient {
    // a base URL saved from the admin was checked when saved; its addresses are checked again on every connection
    const guarded = this.guardsAddresses(options.id, options.baseUrl)
    const signature = createHash("sha256")
      .update([options.apiKey, options.baseUrl, options.timeoutMs, options.signRequests, guarded].join("\n"))
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
      refusePrivateAddresses: guarded,
    })
    this.clients_.set(options.id, { signature, client })
    return client
  }

  /**
   * Saves the admin's changes to instance `id` (validated; the key encrypted). In effect here at once.
   * A key is bound to the base URL origin it is entered for: a change of origin needs `apiKey` in
   * the same patch (else 400 `api_key_required`), and a base URL typed here must be a public
   * address (else 400 `base_url_not_allowed`) unless the instance allows private ones.
   */
  async updateProvider(id: string, patch: ProviderSettingsPatch, actor?: string): Promise<EffectiveProviderSettings> {
    const config = this.providers.get(id)
    if (!config) {
      throw new MedusaError(MedusaError.Types.NOT_FOUND, `No pay-in provider instance "${id}" in this store`)
    }
    const scope = providerScope(id)
    await this.load(0)
    const row = this.rows_.get(scope)
    const { overrides: current, keyOrigin: storedOrigin } = splitProviderValues(row?.values)
    const { apiKey, revision, ...fields } = patch
    const overrides = applyProviderPatch(config, current, fields)
    const oldOrigin = originOf(current.baseUrl ?? config.baseUrl)
    const newOrigin = originOf(overrides.baseUrl ?? config.baseUrl)
    if (typeof fields.baseUrl === "string" && overrides.baseUrl) {
      const refusal = await this.baseUrlRefusal(id, overrides.baseUrl)
      if (refusal) {
        throw new SettingsValidationError([{ path: "baseUrl", code: "base_url_not_allowed", message: refusal }])
      }
    }
    // the origin the stored key is bound to after this save (undefined: no key stored from the admin)
    let keyOrigin: string | null | undefined
    if (typeof apiKey === "string") {
      keyOrigin = newOrigin
    } else if (apiKey === undefined && row?.api_key_encrypted) {
      keyOrigin = storedOrigin !== undefined ? storedOrigin : (oldOrigin ?? undefined)
      if (newOrigin !== oldOrigin && newOrigin !== null && keyOrigin !== newOrigin) {
        throw apiKeyRequired(
          `the API key must be entered again when the base URL's origin changes (${oldOrigin ?? "none"} → ${newOrigin}): ` +
            "the saved key is only sent to the origin it was entered for"
        )
      }
    } else if (config.apiKey && newOrigin !== null && newOrigin !== originOf(config.baseUrl) && (newOrigin !== oldOrigin || apiKey === null)) {
      // medusa-config's key would be in effect, at an origin it was not configured for
      throw apiKeyRequired(
        `enter the API key for ${newOrigin}: the key from medusa-config is only sent to its own base URL ` +
          `(${originOf(config.baseUrl) ?? "none"})`
      )
    }
    let keyColumns: Record<string, unknown> = {}
    if (apiKey === null) {
      keyColumns = { api_key_encrypted: null, api_key_last4: null, api_key_updated_at: null }
    } else if (apiKey !== undefined) {
      const checked = providerOptionsSchema.shape.apiKey.safeParse(apiKey)
      if (!checked.success || !checked.data) {
        throw new SettingsValidationError(zodFields(checked.error ?? new z.ZodError([]), "apiKey"))
      }
      let encrypted: string
      try {
        encrypted = this.secretBox.encrypt(checked.data, scope)
      } catch (e) {
        throw new SettingsValidationError([{ path: "apiKey", message: (e as Error).message }])
      }
      keyColumns = { api_key_encrypted: encrypted, api_key_last4: lastFour(checked.data), api_key_updated_at: new Date() }
    }
    const values = keyOrigin === undefined ? overrides : { ...overrides, [API_KEY_ORIGIN]: keyOrigin }
    await this.write(scope, values, keyColumns, revision, actor)
    if (newOrigin !== oldOrigin) {
      this.logger.info(
        `payin: the base URL of provider instance "${id}" moved from ${oldOrigin ?? "(none)"} to ${newOrigin ?? "(none)"}, ` +
          `saved from the admin${actor ? ` by ${actor}` : ""}${typeof apiKey === "string" ? "; the API key was entered for it" : ""}`
      )
    }
    return (await this.provider(id, 0))!
  }

  async updatePlugin(patch: PluginSettingsPatch, actor?: string) {
    await this.load(0)
    const { revision, ...fields } = patch
    const row = this.rows_.get(pluginScope)
    const overrides = applyPluginPatch(this.pluginConfig, (row?.values ?? {}) as PluginOverrides, fields)
    await this.write(pluginScope, overrides, {}, revision, actor)
    await this.load(0)
    return this.pluginView()
  }

  /**
   * Writes a scope's overrides in one statement. With `revision` (what the admin's form was read
   * at), the write happens only when nobody saved since; otherwise SettingsConflictError.
   */
  private async write(
    scope: string,
    values: Record<string, unknown>,
    keyColumns: Record<string, unknown>,
    revision: number | undefined,
    actor?: string
  ): Promise<void> {
    const columns = Object.keys(keyColumns)
    // A form that read the scope at revision N > 0 updates that row only while it is still at N
    // (an insert guarded by the revision would insert nothing, so its ON CONFLICT would never run).
    const result = revision
      ? await this.db().raw(
          `update payin_setting set values = ?::jsonb, revision = revision + 1, updated_by = ?, updated_at = now()${columns
            .map((c) => `, ${c} = ?`)
            .join("")}
           where scope = ? and deleted_at is null and revision = ?
           returning revision`,
          [JSON.stringify(values), actor ?? null, ...columns.map((c) => keyColumns[c]), scope, revision]
        )
      : // no revision, or revision 0 (the form read no row): insert, or update an existing row
        // (unconditionally without a revision; with 0, only if it is still at 0, i.e. never)
        await this.db().raw(
          `insert into payin_setting (id, scope, values, revision, updated_by${columns.map((c) => `, ${c}`).join("")})
           values (?, ?, ?::jsonb, 1, ?${columns.map(() => ", ?").join("")})
           on conflict (scope) where deleted_at is null do update set
             values = excluded.values, revision = payin_setting.revision + 1, updated_by = excluded.updated_by,
             updated_at = now()${columns.map((c) => `, ${c} = excluded.${c}`).join("")}
           ${revision === undefined ? "" : "where payin_setting.revision = 0"}
           returning revision`,
          [generateEntityId(undefined, "payinset"), scope, JSON.stringify(values), actor ?? null, ...columns.map((c) => keyColumns[c])]
        )
    this.loadedAt_ = 0
    this.effective_.clear()
    if (!result.rows.length) {
      await this.load(0)
      throw new SettingsConflictError(this.rows_.get(scope)?.revision ?? 0, revision ?? 0)
    }
  }

  /** Start-up check: every key stored from the admin decrypts with the secrets in the environment. */
  static async verifyStoredKeys(
    pg: Pick<Db, "raw">,
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
}
