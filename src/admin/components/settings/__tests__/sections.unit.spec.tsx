import { TooltipProvider } from "@medusajs/ui"
import { QueryClient, QueryClientProvider } from "@tanstack/react-query"
import i18next from "i18next"
import type { ReactNode } from "react"
import { renderToStaticMarkup } from "react-dom/server"
import { initReactI18next } from "react-i18next"
import { z } from "zod"
import { pluginOptionsSchema, providerOptionsSchema } from "../../../../modules/payin/settings/options"
import { CONFIG_ONLY_FIELDS } from "../../../../modules/payin/settings/overrides"
import en from "../../../i18n/json/en.json"
import ru from "../../../i18n/json/ru.json"
import type { PluginSettings, ProviderSettings } from "../../../lib/settings-api"
import type { FieldSpec } from "../../../lib/settings-form"
import { ALERTS_FIELDS, ALERT_SIGNAL_OPTIONS } from "../alerts"
import { CHECKOUT_FIELDS } from "../checkout"
import { CONNECTION_FIELDS } from "../connection"
import { NOTIFICATION_FIELDS } from "../notifications"
import { ORDER_FIELDS } from "../orders"
import { PAYMENT_PAGE_FIELDS } from "../payment-page"
import { PluginSettingsForm } from "../plugin-form"
import { ProviderSettingsForm } from "../provider-form"
import { RECONCILIATION_FIELDS } from "../reconciliation"
import { RETENTION_FIELDS } from "../retention"

const PROVIDER_SECTIONS: readonly FieldSpec[][] = [CONNECTION_FIELDS, PAYMENT_PAGE_FIELDS, CHECKOUT_FIELDS, ORDER_FIELDS, NOTIFICATION_FIELDS].map((s) => [...s])
const PLUGIN_SECTIONS: readonly FieldSpec[][] = [RECONCILIATION_FIELDS, RETENTION_FIELDS, ALERTS_FIELDS].map((s) => [...s] as FieldSpec[])

/** An option schema's field paths: a field, or each field of an object-valued one as `<group>.<field>`. */
function paths(shape: Record<string, z.ZodType>): string[] {
  return Object.entries(shape).flatMap(([key, schema]) => {
    let inner: z.ZodType = schema
    while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType
    return inner instanceof z.ZodObject ? Object.keys(inner.shape).map((field) => `${key}.${field}`) : [key]
  })
}

const provider: ProviderSettings = {
  id: "default",
  provider_id: "pp_payin_default",
  webhook_path: "/hooks/payin/default",
  webhook_url: "https://store.example/hooks/payin/default",
  api_key: { set: true, last4: "5678", masked: "••••5678", source: "admin", updated_at: null, error: null },
  values: { ...providerOptionsSchema.parse({}), baseUrl: "https://pay.example.com" },
  sources: { baseUrl: "config", apiKey: "admin", "paymentPage.successUrl": "admin", amountPolicy: "default" },
  overrides: {},
  configured: true,
  revision: 3,
  updated_at: null,
}
const plugin: PluginSettings = { values: pluginOptionsSchema.parse({}), sources: { reconcileAfterSeconds: "admin" }, overrides: {}, revision: 1 }

/** Drawn as the dashboard draws a page: with its query client, i18next (in `language`) and tooltip provider. */
function render(language: "en" | "ru", node: ReactNode): string {
  void i18next
    .createInstance()
    .use(initReactI18next)
    .init({ lng: language, resources: { en: { translation: en }, ru: { translation: ru } }, initImmediate: false })
  return renderToStaticMarkup(
    <QueryClientProvider client={new QueryClient()}>
      <TooltipProvider>{node}</TooltipProvider>
    </QueryClientProvider>
  )
}

/** Every key of a translation file, as dotted paths. */
const keys = (tree: object, prefix = ""): string[] =>
  Object.entries(tree).flatMap(([k, v]) => (v && typeof v === "object" ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`]))

describe("the settings page's sections", () => {
  it("every option the admin may set is a field of one section, and nothing else is", () => {
    const placed = PROVIDER_SECTIONS.flat().map((s) => s.path)
    const settable = paths(providerOptionsSchema.shape).filter((p) => !(CONFIG_ONLY_FIELDS as readonly string[]).includes(p))
    expect([...placed].sort()).toEqual([...settable].sort())
    expect(new Set(placed).size).toBe(placed.length)
    expect(PLUGIN_SECTIONS.flat().map((s) => s.path).sort()).toEqual(paths(pluginOptionsSchema.shape).sort())
    expect(settable).toContain("timeoutMs")
    expect(PLUGIN_SECTIONS[0].map((s) => s.path)).toEqual(expect.arrayContaining(["reconcileAfterSeconds", "reconcileConcurrency"]))
  })

  it("every label, hint and choice has an English and a Russian text, and both languages have the same keys", () => {
    expect(keys(ru).sort()).toEqual(keys(en).sort())
    const used = [...PROVIDER_SECTIONS, ...PLUGIN_SECTIONS].flat().flatMap((s) => [
      s.label,
      ...(s.hint ? [`${s.label}Hint`] : []),
      ...(s.options ?? []).flatMap((o) => (o.labelKey ? [o.labelKey] : [])),
    ])
    for (const key of used) expect(keys(en)).toContain(`payin.settings.${key}`)
  })

  it.each(["en", "ru"] as const)("draws each provider field with its test id and source, in %s", (language) => {
    const html = render(language, <ProviderSettingsForm settings={provider} encryptionConfigured />)
    for (const spec of PROVIDER_SECTIONS.flat()) {
      // only for a range, only while pay again is on
      const shown = spec.path !== "amountPolicy.tolerancePercent" && spec.path !== "payAgain.graceHours"
      expect(html.includes(`data-testid="payin-field-${spec.path}"`)).toBe(shown)
    }
    for (const id of ["payin-save", "payin-test-connection", "payin-webhook-url", "payin-webhook-health", "payin-apikey-masked"]) {
      expect(html).toContain(`data-testid="${id}"`)
    }
    expect(html).toContain('data-testid="payin-source-paymentPage.successUrl" data-source="admin"')
    expect(html).toContain('data-testid="payin-reset-paymentPage.successUrl"')
    expect(html).toContain('data-testid="payin-source-amountPolicy"')
    expect(html).not.toMatch(/payin\.(settings|common)\./) // no key without its text
  })

  it("names every control by its label: for= an id that is there, a group by aria-labelledby", () => {
    const html = render("en", <ProviderSettingsForm settings={provider} encryptionConfigured />) + render("en", <PluginSettingsForm plugin={plugin} />)
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]))
    const targets = [...html.matchAll(/<label[^>]* for="([^"]+)"/g)].map((m) => m[1])
    expect(targets.length).toBeGreaterThan(20)
    for (const id of targets) expect([id, ids.has(id)]).toEqual([id, true])
    // the switches and selects too (Radix buttons, named only through the label's for=)
    expect(html).toMatch(/<button[^>]*role="switch"[^>]*id="payin-signRequests"/)
    expect(html).toMatch(/<button[^>]*role="combobox"[^>]*id="payin-amountPolicy\.mode"/)
    expect(html).toMatch(/role="group" id="payin-allowedMethods" aria-labelledby="payin-allowedMethods-label"/)
    expect(ids.has("payin-allowedMethods-label")).toBe(true)
  })

  it.each(["en", "ru"] as const)("draws the plugin-wide fields in their own container with their own save, in %s", (language) => {
    const html = render(language, <PluginSettingsForm plugin={plugin} />)
    expect(html).toContain('data-testid="payin-plugin-settings"')
    expect(html).toContain('data-testid="payin-plugin-save"')
    for (const spec of PLUGIN_SECTIONS.flat()) expect(html).toContain(`data-testid="payin-field-${spec.path}"`)
    expect(html).toContain('data-testid="payin-source-reconcileAfterSeconds" data-source="admin"')
    expect(html).toContain('data-testid="payin-health-reconciliation"')
    expect(html).toContain('data-testid="payin-health-retention"')
    expect(html).toContain('data-testid="payin-health-last-check"')
    expect(html).not.toMatch(/payin\.(settings|common)\./)
    // the instance's form is not drawn here
    expect(html).not.toContain('data-testid="payin-field-baseUrl"')
  })

  it.each(["en", "ru"] as const)("the alerts section: a choice per alertable signal with its title, the thresholds each with a hint, in %s", (language) => {
    const html = render(language, <PluginSettingsForm plugin={plugin} />)
    expect(ALERT_SIGNAL_OPTIONS.map((o) => o.value)).toEqual([...pluginOptionsSchema.parse({}).alertSignals])
    const choices = html.slice(html.indexOf('data-testid="payin-field-alertSignals"'))
    for (const o of ALERT_SIGNAL_OPTIONS) expect(choices).toContain(`data-method="${o.value}"`)
    // all alertable signals on by default
    expect(choices.match(/data-state="checked"/g)?.length).toBeGreaterThanOrEqual(ALERT_SIGNAL_OPTIONS.length)
    for (const path of ["healthMissedWebhooks", "healthRejectedWebhooks", "healthServiceErrorPercent", "healthRequisitesUnavailablePercent", "healthUncapturedMinutes", "webhookBacklogSeconds", "apiKeyMaxAgeDays"]) {
      expect(html).toMatch(new RegExp(`id="payin-${path}"[^>]*aria-describedby="payin-${path}-hint"|aria-describedby="payin-${path}-hint"[^>]*id="payin-${path}"`))
      expect(html).toContain(`id="payin-${path}-hint"`)
    }
    expect(html).toContain(language === "en" ? "Thresholds" : "Пороги")
    expect(html).toContain('id="payin-section-alerts"')
  })
})
