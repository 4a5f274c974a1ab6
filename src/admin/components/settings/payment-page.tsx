// Payment Page defaults sent with each pay-in: where the shopper returns, the support link, the language.
import { useTranslation } from "react-i18next"
import type { ProviderFieldPath } from "../../lib/settings-api"
import type { FieldSpec } from "../../lib/settings-form"
import type { SettingsForm } from "../../lib/use-settings-form"
import { Section, SettingFields } from "./field"

const LOCALES = [
  { value: "", labelKey: "localeDefault" },
  { value: "EN", label: "English (EN)" },
  { value: "RU", label: "Русский (RU)" },
]

export const PAYMENT_PAGE_FIELDS = [
  { path: "paymentPage.successUrl", kind: "text", label: "successUrl", placeholder: "https://" },
  { path: "paymentPage.failureUrl", kind: "text", label: "failureUrl", placeholder: "https://" },
  { path: "paymentPage.supportLink", kind: "text", label: "supportLink", placeholder: "https://" },
  { path: "paymentPage.locale", kind: "select", label: "locale", options: LOCALES },
] as const satisfies readonly FieldSpec<ProviderFieldPath>[]

export function PaymentPageSection({ form }: { form: SettingsForm }) {
  const { t } = useTranslation()
  return (
    <Section title={t("payin.settings.paymentPage")} testId="payin-section-paymentPage">
      <SettingFields specs={PAYMENT_PAGE_FIELDS} form={form} />
    </Section>
  )
}
