// Reconciliation (every instance): how often and how many unfinished pay-ins are looked up, when
// a pay-in is old enough to look up, attempts at an effect, the per-pay-in lock; the last run.
import { Alert, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { type PluginFieldPath, useWebhookHealth } from "../../lib/settings-api"
import type { FieldSpec } from "../../lib/settings-form"
import type { SettingsForm } from "../../lib/use-settings-form"
import { formatDate } from "../common"
import { Section, SettingFields } from "./field"

export const RECONCILIATION_FIELDS = [
  { path: "reconcileIntervalSeconds", kind: "number", label: "reconcileIntervalSeconds" },
  { path: "reconcileAfterSeconds", kind: "number", label: "reconcileAfterSeconds" },
  { path: "reconcileConcurrency", kind: "number", label: "reconcileConcurrency" },
  { path: "effectRetryLimit", kind: "number", label: "effectRetryLimit" },
  { path: "lockTtlSeconds", kind: "number", label: "lockTtlSeconds" },
] as const satisfies readonly FieldSpec<PluginFieldPath>[]

export function ReconciliationSection({ form }: { form: SettingsForm }) {
  const { t, i18n } = useTranslation()
  const reconciliation = useWebhookHealth().data?.reconciliation
  return (
    <Section title={t("payin.settings.plugin")} testId="payin-section-reconciliation">
      <SettingFields specs={RECONCILIATION_FIELDS} form={form} />
      <Text size="small" data-testid="payin-health-reconciliation">
        {t("payin.settings.lastReconciliation")}:{" "}
        {reconciliation?.last_run_at ? formatDate(reconciliation.last_run_at, i18n.language) : t("payin.settings.never")}
      </Text>
      {reconciliation?.overdue && (
        <Alert variant="warning" data-testid="payin-health-reconciliation-overdue">
          {t("payin.settings.reconciliationOverdue")}
        </Alert>
      )}
    </Section>
  )
}
