// Shopper notifications through Medusa's Notification Module: on or off, the channel, a template
// per kind, the order status page URL.
import { Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import type { ProviderFieldPath } from "../../lib/settings-api"
import type { FieldSpec } from "../../lib/settings-form"
import type { SettingsForm } from "../../lib/use-settings-form"
import { Section, SettingFields } from "./field"

export const NOTIFICATION_FIELDS = [
  { path: "notifications.enabled", kind: "switch", label: "notifyEnabled" },
  { path: "notifications.channel", kind: "text", label: "notifyChannel", hint: true },
  { path: "notifications.instructionsTemplate", kind: "text", label: "instructionsTemplate" },
  { path: "notifications.paidTemplate", kind: "text", label: "paidTemplate" },
  { path: "notifications.expiredTemplate", kind: "text", label: "expiredTemplate" },
  {
    path: "notifications.orderStatusUrl",
    kind: "text",
    label: "orderStatusUrl",
    hint: true,
    placeholder: "https://shop.example.com/{country_code}/order/{order_id}",
  },
] as const satisfies readonly FieldSpec<ProviderFieldPath>[]

export function NotificationsSection({ form }: { form: SettingsForm }) {
  const { t } = useTranslation()
  return (
    <Section title={t("payin.settings.notifications")} testId="payin-section-notifications">
      <Text size="small" className="text-ui-fg-subtle">{t("payin.settings.notificationsHint")}</Text>
      <SettingFields specs={NOTIFICATION_FIELDS} form={form} />
    </Section>
  )
}
