// Orders and refunds: cancel an order whose payment window ended unpaid, let its shopper pay again
// within a grace period; record refunds made outside.
import { useTranslation } from "react-i18next"
import type { ProviderFieldPath } from "../../lib/settings-api"
import type { FieldSpec } from "../../lib/settings-form"
import type { SettingsForm } from "../../lib/use-settings-form"
import { Section, SettingFields } from "./field"

export const ORDER_FIELDS = [
  { path: "cancelUnpaidOrdersOnExpiry", kind: "switch", label: "cancelUnpaidOrdersOnExpiry" },
  { path: "payAgain.enabled", kind: "switch", label: "payAgainEnabled", hint: true },
  {
    path: "payAgain.graceHours",
    kind: "number",
    label: "payAgainGraceHours",
    empty: 24,
    step: "1",
    visible: (draft) => draft["payAgain.enabled"] === true,
  },
  { path: "manualRefunds", kind: "switch", label: "manualRefunds" },
] as const satisfies readonly FieldSpec<ProviderFieldPath>[]

export function OrdersSection({ form }: { form: SettingsForm }) {
  const { t } = useTranslation()
  return (
    <Section title={t("payin.settings.orders")} testId="payin-section-orders">
      <SettingFields specs={ORDER_FIELDS} form={form} />
    </Section>
  )
}
