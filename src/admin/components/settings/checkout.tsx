// Checkout rules: where the storefront may send shoppers back, the methods and banks offered,
// how the amount is asked (exact, or a range with a tolerance), the payment window.
import { useTranslation } from "react-i18next"
import { PAYIN_METHODS } from "../../../client/methods"
import type { ProviderFieldPath } from "../../lib/settings-api"
import type { FieldSpec } from "../../lib/settings-form"
import type { SettingsForm } from "../../lib/use-settings-form"
import { Section, SettingFields } from "./field"

export const CHECKOUT_FIELDS = [
  { path: "allowedRedirectOrigins", kind: "lines", label: "allowedRedirectOrigins", hint: true },
  { path: "allowedMethods", kind: "choices", label: "allowedMethods", hint: true, options: PAYIN_METHODS.map((m) => ({ value: m, label: m })) },
  { path: "allowedBanks", kind: "lines", label: "allowedBanks", hint: true },
  {
    path: "amountPolicy.mode",
    field: "amountPolicy",
    kind: "select",
    label: "amountPolicy",
    options: [
      { value: "fixed", labelKey: "amountFixed" },
      { value: "range", labelKey: "amountRange" },
    ],
  },
  {
    path: "amountPolicy.tolerancePercent",
    kind: "number",
    label: "tolerancePercent",
    empty: 0,
    step: "0.1",
    visible: (draft) => draft["amountPolicy.mode"] === "range",
  },
  { path: "paymentWindowSeconds", kind: "number", label: "paymentWindowSeconds" },
] as const satisfies readonly FieldSpec<ProviderFieldPath>[]

export function CheckoutSection({ form }: { form: SettingsForm }) {
  const { t } = useTranslation()
  return (
    <Section title={t("payin.settings.checkout")} testId="payin-section-checkout">
      <SettingFields specs={CHECKOUT_FIELDS} form={form} />
    </Section>
  )
}
