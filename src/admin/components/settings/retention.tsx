// Retention (every instance): how long applied webhook deliveries, the daily webhook counters and
// the status history of ended pay-ins are kept, the batch size of the job that prunes them; its last run.
import { Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { type PluginFieldPath, useWebhookHealth } from "../../lib/settings-api"
import type { FieldSpec } from "../../lib/settings-form"
import type { SettingsForm } from "../../lib/use-settings-form"
import { formatDate } from "../common"
import { Section, SettingFields } from "./field"

export const RETENTION_FIELDS = [
  { path: "webhookRetentionDays", kind: "number", label: "webhookRetentionDays" },
  { path: "webhookCounterRetentionDays", kind: "number", label: "webhookCounterRetentionDays" },
  { path: "historyRetentionDays", kind: "number", label: "historyRetentionDays" },
  { path: "pruneBatchSize", kind: "number", label: "pruneBatchSize" },
] as const satisfies readonly FieldSpec<PluginFieldPath>[]

export function RetentionSection({ form }: { form: SettingsForm }) {
  const { t, i18n } = useTranslation()
  const retention = useWebhookHealth().data?.retention
  return (
    <Section title={t("payin.settings.retention")} testId="payin-section-retention">
      <Text size="small" className="text-ui-fg-subtle">{t("payin.settings.retentionHint")}</Text>
      <SettingFields specs={RETENTION_FIELDS} form={form} />
      <Text size="small" data-testid="payin-health-retention">
        {t("payin.settings.lastRetention")}:{" "}
        {retention?.last_run_at
          ? `${formatDate(retention.last_run_at, i18n.language)} (${t("payin.settings.retentionPruned", {
              entries: retention.last_report?.inboxPruned ?? 0,
              counters: retention.last_report?.countersPruned ?? 0,
              history: retention.last_report?.historyPruned ?? 0,
            })})`
          : t("payin.settings.never")}
      </Text>
    </Section>
  )
}
