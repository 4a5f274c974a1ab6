// Health and alerts (every instance): how often the health is checked, the alerts (the admin's
// notifications, e-mail recipients and channel, which signals, how often again) and the
// thresholds that turn a signal's warning into a failure; the last check's time.
import { Heading, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { ALERTABLE_SIGNALS } from "../../../modules/payin/signal-ids"
import { useHealth } from "../../lib/health-api"
import type { PluginFieldPath } from "../../lib/settings-api"
import type { FieldSpec } from "../../lib/settings-form"
import type { SettingsForm } from "../../lib/use-settings-form"
import { formatDate } from "../common"
import { Section, SettingFields } from "./field"

/** One choice per signal that can alert, labelled by its title (payin.settings.alertSignal.<id>). */
export const ALERT_SIGNAL_OPTIONS = ALERTABLE_SIGNALS.map((id) => ({ value: id, labelKey: `alertSignal.${id}` }))

export const ALERT_FIELDS = [
  { path: "healthCheckIntervalSeconds", kind: "number", label: "healthCheckIntervalSeconds" },
  { path: "alertsEnabled", kind: "switch", label: "alertsEnabled" },
  { path: "alertSignals", kind: "choices", label: "alertSignals", hint: true, options: ALERT_SIGNAL_OPTIONS },
  { path: "alertEmailRecipients", kind: "lines", label: "alertEmailRecipients", hint: true, placeholder: "ops@shop.example.com" },
  { path: "alertEmailChannel", kind: "text", label: "alertEmailChannel", hint: true },
  { path: "alertMinIntervalMinutes", kind: "number", label: "alertMinIntervalMinutes", hint: true },
] as const satisfies readonly FieldSpec<PluginFieldPath>[]

export const THRESHOLD_FIELDS = [
  { path: "healthMissedWebhooks", kind: "number", label: "healthMissedWebhooks", hint: true },
  { path: "healthRejectedWebhooks", kind: "number", label: "healthRejectedWebhooks", hint: true },
  { path: "healthServiceErrorPercent", kind: "number", label: "healthServiceErrorPercent", hint: true },
  { path: "healthRequisitesUnavailablePercent", kind: "number", label: "healthRequisitesUnavailablePercent", hint: true },
  { path: "healthUncapturedMinutes", kind: "number", label: "healthUncapturedMinutes", hint: true },
  { path: "webhookBacklogSeconds", kind: "number", label: "webhookBacklogSeconds", hint: true },
  { path: "apiKeyMaxAgeDays", kind: "number", label: "apiKeyMaxAgeDays", hint: true },
] as const satisfies readonly FieldSpec<PluginFieldPath>[]

export const ALERTS_FIELDS = [...ALERT_FIELDS, ...THRESHOLD_FIELDS] as const

export function AlertsSection({ form }: { form: SettingsForm }) {
  const { t, i18n } = useTranslation()
  const health = useHealth().data
  return (
    <Section title={t("payin.settings.alerts")} testId="payin-section-alerts">
      <Text size="small" className="text-ui-fg-subtle">{t("payin.settings.alertsHint")}</Text>
      <SettingFields specs={ALERT_FIELDS} form={form} />
      <div className="flex flex-col gap-y-1" data-testid="payin-section-thresholds">
        <Heading level="h3">{t("payin.settings.thresholds")}</Heading>
        <Text size="small" className="text-ui-fg-subtle">{t("payin.settings.thresholdsHint")}</Text>
      </div>
      <SettingFields specs={THRESHOLD_FIELDS} form={form} />
      <Text size="small" data-testid="payin-health-last-check">
        {t("payin.settings.lastHealthCheck")}: {health?.checked_at ? formatDate(health.checked_at, i18n.language) : t("payin.settings.never")}
      </Text>
    </Section>
  )
}
