// The instance's webhook URL to paste into the merchant panel, and its deliveries: counts over
// the kept days, the last delivery and the last failure.
import { Copy, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { type ProviderSettings, useWebhookHealth } from "../../lib/settings-api"
import { formatDate } from "../common"
import { Section } from "./field"

export function WebhookSection({ settings }: { settings: ProviderSettings }) {
  const { t } = useTranslation()
  return (
    <Section title={t("payin.settings.webhook")} testId="payin-section-webhook">
      <Text size="small">{t("payin.settings.webhookUrl")}</Text>
      <div className="flex items-center gap-2">
        <code className="bg-ui-bg-subtle rounded px-2 py-1 txt-compact-small break-all" data-testid="payin-webhook-url">
          {settings.webhook_url}
        </code>
        <span data-testid="payin-webhook-copy">
          <Copy content={settings.webhook_url} />
        </span>
      </div>
    </Section>
  )
}

export function WebhookHealthSection({ id }: { id: string }) {
  const { t, i18n } = useTranslation()
  const h = useWebhookHealth().data?.providers.find((p) => p.id === id)
  return (
    <Section title={t("payin.settings.health")} testId="payin-section-health">
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-4" data-testid="payin-webhook-health">
        {(["accepted", "duplicates", "rejected", "failed"] as const).map((k) => (
          <div key={k} className="flex flex-col">
            <Text size="xsmall" className="text-ui-fg-subtle">{t(`payin.settings.${k}`)}</Text>
            <Text size="large" weight="plus" data-testid={`payin-health-${k}`}>
              {h ? h[k] : "—"}
            </Text>
          </div>
        ))}
      </div>
      <Text size="small" data-testid="payin-health-last-delivery">
        {t("payin.settings.lastDelivery")}: {h?.last_delivery_at ? formatDate(h.last_delivery_at, i18n.language) : t("payin.settings.never")}
      </Text>
      <Text size="small" data-testid="payin-health-last-failure">
        {t("payin.settings.lastFailure")}:{" "}
        {h?.last_failure_at ? `${formatDate(h.last_failure_at, i18n.language)} (${h.last_failure_reason ?? ""})` : t("payin.settings.never")}
      </Text>
    </Section>
  )
}
