// Settings → Pay-in: the settings of a provider instance (connection, Payment Page defaults,
// checkout rules, orders, shopper notifications; its webhook URL and health), then the
// plugin-wide ones (reconciliation, retention, health and alerts) in a container of their own.
// Each value shows where it comes from. The sections are in components/settings/; a link's hash
// (`#payin-section-connection`, from the Health section) scrolls to its section once it is drawn.
import { defineRouteConfig } from "@medusajs/admin-sdk"
import { Badge, Container, Heading, Label, Select, Text } from "@medusajs/ui"
import { useEffect, useState } from "react"
import { useTranslation } from "react-i18next"
import { useLocation } from "react-router-dom"
import { ErrorText } from "../../../components/common"
import { PluginSettingsForm } from "../../../components/settings/plugin-form"
import { ProviderSettingsForm } from "../../../components/settings/provider-form"
import { type ProviderSettings, useSettings } from "../../../lib/settings-api"

function InstanceSelect({ providers, value, onChange }: { providers: ProviderSettings[]; value?: string; onChange: (id: string) => void }) {
  const { t } = useTranslation()
  return (
    <div className="flex items-center gap-2 px-6 py-4">
      <Label size="small" htmlFor="payin-instance">{t("payin.settings.instance")}</Label>
      <div className="w-64" data-testid="payin-instance-select">
        <Select value={value} onValueChange={onChange} size="small">
          <Select.Trigger id="payin-instance">
            <Select.Value />
          </Select.Trigger>
          <Select.Content>
            {providers.map((p) => (
              <Select.Item key={p.id} value={p.id}>
                {p.provider_id}
              </Select.Item>
            ))}
          </Select.Content>
        </Select>
      </div>
    </div>
  )
}

const PayinSettingsPage = () => {
  const { t } = useTranslation()
  const { data, isLoading, error } = useSettings()
  const [selected, setSelected] = useState<string | null>(null)
  const provider = data?.providers.find((p) => p.id === selected) ?? data?.providers[0]
  const { hash } = useLocation()
  const loaded = Boolean(data)
  useEffect(() => {
    if (loaded && hash.length > 1) document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView({ block: "start" })
  }, [loaded, hash])
  return (
    <div className="flex flex-col gap-y-3" data-testid="payin-settings-page">
      <Container className="divide-y p-0">
        <div className="flex items-center justify-between px-6 py-4">
          <div>
            <Heading level="h1">{t("payin.settings.title")}</Heading>
            <Text size="small" className="text-ui-fg-subtle">{t("payin.settings.subtitle")}</Text>
          </div>
          {provider ? (
            <Badge size="small" color={provider.configured ? "green" : "orange"}>
              {provider.provider_id}
            </Badge>
          ) : null}
        </div>
        {isLoading ? <Text className="px-6 py-4">{t("payin.common.loading")}</Text> : null}
        {error ? <ErrorText error={error} /> : null}
        {data && data.providers.length > 1 ? <InstanceSelect providers={data.providers} value={provider?.id} onChange={setSelected} /> : null}
        {data && provider ? <ProviderSettingsForm key={provider.id} settings={provider} encryptionConfigured={data.encryption.configured} /> : null}
      </Container>
      {data ? <PluginSettingsForm plugin={data.plugin} /> : null}
    </div>
  )
}

export const config = defineRouteConfig({
  label: "payin.settingsLabel",
  translationNs: "translation",
})

export default PayinSettingsPage
