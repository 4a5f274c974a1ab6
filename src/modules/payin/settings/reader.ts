import { logger as medusaLogger } from "@medusajs/framework/logger"
import { Resolve, refusedHost } from "../../../client/address"
import type { PayinClient } from "../../../client/client"
import { PayinServiceError } from "../../../client/errors"
import { PayinClientPool } from "../../../client/pool"
import type { Db } from "../db"
import type { PayinPluginOptions, PayinProviderOptions } from "./options"
import {
  API_KEY_ORIGIN,
  ConfigSources,
  OptionSource,
  PluginOverrides,
  ProviderOverrides,
  SETTINGS_TTL_MS,
  mergeProviderOptions,
  originOf,
  pluginScope,
  pluginSources,
  providerScope,
  providerSources,
  splitProviderValues,
} from "./overrides"
import { allowsPrivateBaseUrl } from "./parse"
import { SecretBox, lastFour, maskKey } from "./secrets"

export type Logger = { info(message: string): void; warn(message: string): void }

export type SettingRow = {
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

/**
 * The settings in effect (read side; SettingsStore adds the admin's saves): medusa-config's
 * options with the admin's overrides (table payin_setting) on top, the stored API key decrypted. Every instance reads the table again when
 * its copy is older than SETTINGS_TTL_MS, and at once when a webhook signature or the service
 * refuses its key; a change saved here is in effect here at once.
 */
export class SettingsReader {
  protected rows_ = new Map<string, SettingRow>()
  protected loadedAt_ = 0
  private loading_: Promise<void> | null = null
  protected effective_ = new Map<string, EffectiveProviderSettings>()
  private readonly clients_ = new PayinClientPool()
  private secretBox_: SecretBox | null = null
  /** Where origin changes and unusable keys are reported (never a key). */
  logger: Logger
  /** Resolves a typed base URL's host for the address check (DNS; replaced in tests). */
  resolveHost: Resolve | undefined = undefined

  constructor(
    protected readonly db: () => Db,
    protected readonly pluginConfig: PayinPluginOptions,
    protected readonly providers: Map<string, PayinProviderOptions>,
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
   * call is made once more with them (a refused request did nothing). Every outgoing call of a
   * configured instance goes through here (checkout, lookups, bank lists) but the admin's
   * connection test, which makes a client of its own.
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
    return this.clients_.get({
      id: options.id,
      apiKey: options.apiKey!,
      baseUrl: options.baseUrl!,
      timeoutMs: options.timeoutMs,
      signRequests: options.signRequests,
      // a base URL saved from the admin was checked when saved; its addresses are checked again on every connection
      refusePrivateAddresses: this.guardsAddresses(options.id, options.baseUrl),
    })
  }
}
