import { logger as medusaLogger } from "@medusajs/framework/logger"
import { Resolve, refusedHost } from "../../../client/address"
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

export type EffectiveProviderSettings = {
  id: string
  options: PayinProviderOptions
  overrides: ProviderOverrides
  sources: Record<string, OptionSource | null>
  apiKey: { set: boolean; last4: string | null; masked: string | null; source: OptionSource | null; updated_at: Date | null }
  revision: number
  updated_at: Date | null
  /** Why the key is not used: it cannot be decrypted, or the base URL's origin is not the one it was entered for. */
  error: string | null
}

export class SettingsReader {
  protected rows_ = new Map<string, SettingRow>()
  protected loadedAt_ = 0
  private loading_: Promise<void> | null = null
  protected effective_ = new Map<string, EffectiveProviderSettings>()
  private secretBox_: SecretBox | null = null
  /** Where origin changes and unusable keys are reported (never a key). */
  logger: Logger
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

  get secretBox(): SecretBox {
    this.secretBox_ ??= new SecretBox()
    return this.secretBox_
  }

  get pluginOptions(): PayinPluginOptions {
    return { ...this.pluginConfig, ...((this.rows_.get(pluginScope)?.values ?? {}) as PluginOverrides) }
  }

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

  /** Null for a public host, medusa-config's own base URL origin, or an instance allowed private addresses. */
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

  guardsAddresses(id: string, baseUrl: string | null | undefined): boolean {
    const config = this.providers.get(id)
    if (!config || allowsPrivateBaseUrl(config)) return false
    return originOf(baseUrl) !== originOf(config.baseUrl)
  }

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

  /** The instances sharing `id`'s API key and base URL: a callback verified with `id`'s key may touch their pay-ins. */
  async sameAccount(id: string): Promise<string[]> {
    const mine = await this.providerOptions(id)
    if (!mine?.apiKey) return []
    const all = await Promise.all(this.instanceIds().map(async (other) => [other, await this.providerOptions(other)] as const))
    return all.filter(([, o]) => o?.apiKey === mine.apiKey && o?.baseUrl === mine.baseUrl).map(([other]) => other)
  }
}
