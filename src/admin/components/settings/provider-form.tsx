// One provider instance's settings: its sections, saved together through POST
// /admin/payin/settings/:id, then its webhook URL and webhook health.
import { Button } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { type ProviderFieldPath, type ProviderSettings, useSaveProvider } from "../../lib/settings-api"
import { useSettingsForm } from "../../lib/use-settings-form"
import { CHECKOUT_FIELDS, CheckoutSection } from "./checkout"
import { CONNECTION_FIELDS, ConnectionSection } from "./connection"
import { NOTIFICATION_FIELDS, NotificationsSection } from "./notifications"
import { ORDER_FIELDS, OrdersSection } from "./orders"
import { PAYMENT_PAGE_FIELDS, PaymentPageSection } from "./payment-page"
import { WebhookHealthSection, WebhookSection } from "./webhook"

const PROVIDER_FIELDS = [...CONNECTION_FIELDS, ...PAYMENT_PAGE_FIELDS, ...CHECKOUT_FIELDS, ...ORDER_FIELDS, ...NOTIFICATION_FIELDS]

// Every option the admin may set is in a section: a new option does not compile until it is placed.
type Unplaced = Exclude<ProviderFieldPath, (typeof PROVIDER_FIELDS)[number]["path"]>
const everyOptionPlaced: [Unplaced] extends [never] ? true : Unplaced = true
void everyOptionPlaced

export function ProviderSettingsForm({ settings, encryptionConfigured }: { settings: ProviderSettings; encryptionConfigured: boolean }) {
  const { t } = useTranslation()
  const form = useSettingsForm({
    values: settings.values,
    sources: settings.sources,
    revision: settings.revision,
    specs: PROVIDER_FIELDS,
    mutation: useSaveProvider(settings.id),
  })
  return (
    <>
      <ConnectionSection settings={settings} encryptionConfigured={encryptionConfigured} form={form} />
      <PaymentPageSection form={form} />
      <CheckoutSection form={form} />
      <OrdersSection form={form} />
      <NotificationsSection form={form} />
      <div className="flex justify-end px-6 py-4">
        <Button onClick={form.save} isLoading={form.pending} data-testid="payin-save">
          {form.pending ? t("payin.common.saving") : t("payin.common.save")}
        </Button>
      </div>
      <WebhookSection settings={settings} />
      <WebhookHealthSection id={settings.id} />
    </>
  )
}
