import { MedusaError, generateEntityId } from "@medusajs/framework/utils"
import { z } from "zod"
import { providerOptionsSchema } from "./options"
import {
  API_KEY_ORIGIN,
  PluginOverrides,
  PluginSettingsPatch,
  ProviderSettingsPatch,
  SettingsValidationError,
  applyPluginPatch,
  applyProviderPatch,
  originOf,
  pluginScope,
  providerScope,
  splitProviderValues,
  zodFields,
} from "./overrides"
import { type EffectiveProviderSettings, SettingsReader } from "./reader"
import { lastFour } from "./secrets"

export type { EffectiveProviderSettings }

/** The 400 of a save that would send a key to an origin it was not entered for. */
const apiKeyRequired = (message: string) =>
  new SettingsValidationError([{ path: "apiKey", code: "api_key_required", message }])

export class SettingsConflictError extends Error {
  constructor(
    readonly current: number,
    readonly given: number
  ) {
    super(`The settings were changed by someone else (revision ${current}, yours ${given}): reload them and save again`)
    this.name = "SettingsConflictError"
  }
}

export class SettingsStore extends SettingsReader {
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

  /** With `revision`, written only when nobody saved since; otherwise SettingsConflictError. */
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
}
