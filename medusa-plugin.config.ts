/**
 * medusa-plugin-payin configuration contract (published as `medusa-plugin-payin/config`).
 *
 * What a store's medusa-config.ts uses: the option schemas of the plugin and of each payment
 * provider instance, their defaults and error messages (owned by the module, in
 * src/modules/payin/settings, and re-exported here), the module's key, and `withPayin()`, the
 * helper that makes installing: npm install, one helper call, `medusa db:migrate`.
 *
 * The repository's own test and demo app call the same helper (with `source: "./src"`), so the
 * documented path is the tested path.
 */
import type { InputConfig, InputConfigModules } from "@medusajs/framework/types"
import { PAYIN_METHODS } from "./src/client/schemas"
import { PAYIN_MODULE } from "./src/modules/payin/key"
import type { PayinPluginOptionsInput, PayinProviderOptionsInput } from "./src/modules/payin/settings/options"
import {
  PayinConfigError,
  parsePluginOptions,
  parseProviderOptions,
  pluginConfigSources,
  providerConfigSources,
} from "./src/modules/payin/settings/parse"
import { PAYIN_PROVIDER_IDENTIFIER, payinProviderId } from "./src/provider-id"

/** npm package name; also the default `source` of withPayin(). */
export const PACKAGE_NAME = "medusa-plugin-payin"
/** Container key of the plugin's module (ledger, webhook inbox, settings): the module's own, re-exported. */
export { PAYIN_MODULE }
/** Medusa's payment module, which hosts the provider instances. */
export const PAYMENT_MODULE_RESOLVE = "@medusajs/medusa/payment"

export { PAYIN_METHODS, PAYIN_PROVIDER_IDENTIFIER, payinProviderId }
export * from "./src/modules/payin/settings/options"
export * from "./src/modules/payin/settings/parse"

// ---------------------------------------------------------------------------------------------
// Registration helper
// ---------------------------------------------------------------------------------------------

export type WithPayinOptions = PayinPluginOptionsInput & {
  /** Payment provider instances; default: one instance with id "default". */
  providers?: PayinProviderOptionsInput[]
  /**
   * Where the plugin's code is loaded from: the package name (default, for stores) or a path to
   * its `src` folder relative to the app (this repository's test and demo app use "./src").
   */
  source?: string
}

type ModuleEntry = { resolve?: unknown; key?: string; options?: Record<string, unknown>; dependencies?: string[] } & Record<
  string,
  unknown
>
type PluginEntry = string | { resolve: string; options: Record<string, unknown> }
/** What withPayin() guarantees on the config it returns. */
export type PayinRegistered = {
  plugins: NonNullable<InputConfig["plugins"]>
  modules: InputConfigModules
}

type ConfigInput = { plugins?: PluginEntry[]; modules?: unknown } & Record<string, unknown>

/**
 * Registers the plugin, its module and its payment provider instance(s) in a medusa-config input:
 *
 *     export default defineConfig(withPayin({ projectConfig: {...} }, { providers: [{ id: "default" }] }))
 *
 * It merges into an existing payment module entry (keeping other providers such as Stripe), adds
 * the `payin` module to that entry's `dependencies` (the provider reads the ledger through it),
 * and validates every option now, so a mistake stops the boot with a clear message.
 */
export function withPayin<T extends ConfigInput>(
  config: T,
  options: WithPayinOptions = {}
): T & PayinRegistered {
  const { providers: providersInput, source = PACKAGE_NAME, ...pluginInput } = options
  const pluginOptions = parsePluginOptions(pluginInput)
  const providers = (providersInput?.length ? providersInput : [{}]).map((p) => parseProviderOptions(p))

  const ids = new Set<string>()
  for (const p of providers) {
    if (ids.has(p.id)) {
      throw new PayinConfigError("providers", [{ path: "providers", message: `provider id "${p.id}" is used twice` }])
    }
    ids.add(p.id)
  }

  // The module (webhook route, ledger) needs each instance's options too: its API key verifies
  // that instance's webhooks.
  // Where each value came from, for the admin's settings page.
  const sources = {
    plugin: pluginConfigSources(pluginInput),
    providers: Object.fromEntries(
      (providersInput?.length ? providersInput : [{}]).map((p, i) => [providers[i].id, providerConfigSources(p)])
    ),
  }
  const moduleOptions = { ...pluginOptions, providers, sources }

  const isPath = source.startsWith(".") || source.startsWith("/")
  const base = source.replace(/\/$/, "")
  const providerResolve = `${base}/providers/${PAYIN_PROVIDER_IDENTIFIER}`
  const providerEntries = providers.map((p) => ({ resolve: providerResolve, id: p.id, options: p }))

  const next: ConfigInput = { ...config }

  if (isPath) {
    // The app is the plugin's own source: its modules are not auto-registered, list them.
    next.modules = upsertModule(next.modules, PAYIN_MODULE, (existing) => ({
      ...existing,
      resolve: `${base}/modules/${PAYIN_MODULE}`,
      options: { ...(existing?.options ?? {}), ...moduleOptions },
    }))
  } else {
    const plugins = [...(next.plugins ?? [])].filter(
      (p) => (typeof p === "string" ? p : p.resolve) !== source
    )
    plugins.push({ resolve: source, options: moduleOptions })
    next.plugins = plugins
  }

  next.modules = upsertModule(next.modules, "payment", (existing) => {
    const existingOptions = existing?.options ?? {}
    const existingProviders = Array.isArray(existingOptions.providers)
      ? (existingOptions.providers as { resolve?: unknown; id?: string }[])
      : []
    const kept = existingProviders.filter(
      (p) => !(p.resolve === providerResolve && providers.some((mine) => mine.id === p.id))
    )
    return {
      ...existing,
      resolve: existing?.resolve ?? PAYMENT_MODULE_RESOLVE,
      dependencies: Array.from(new Set([...(existing?.dependencies ?? []), PAYIN_MODULE])),
      options: { ...existingOptions, providers: [...kept, ...providerEntries] },
    }
  })

  return { ...config, plugins: next.plugins as PayinRegistered["plugins"], modules: next.modules as PayinRegistered["modules"] } as T & PayinRegistered
}

/** Adds or updates one module entry, whether the config lists modules as an array or an object. */
function upsertModule(
  modules: unknown,
  key: string,
  update: (existing: ModuleEntry | undefined) => ModuleEntry
): unknown {
  if (modules && !Array.isArray(modules) && typeof modules === "object") {
    const record = { ...(modules as Record<string, ModuleEntry | boolean>) }
    const current = record[key]
    record[key] = update(typeof current === "object" ? current : undefined)
    return record
  }
  const list = [...((modules as ModuleEntry[] | undefined) ?? [])]
  const index = list.findIndex((m) => moduleKeyOf(m) === key)
  if (index === -1) {
    list.push(update(undefined))
  } else {
    list[index] = update(list[index])
  }
  return list
}

function moduleKeyOf(entry: ModuleEntry): string | undefined {
  if (entry.key) {
    return entry.key
  }
  if (entry.resolve === PAYMENT_MODULE_RESOLVE || entry.resolve === "@medusajs/payment") {
    return "payment"
  }
  if (typeof entry.resolve === "string" && entry.resolve.replace(/\/$/, "").endsWith(`/modules/${PAYIN_MODULE}`)) {
    return PAYIN_MODULE
  }
  return undefined
}
