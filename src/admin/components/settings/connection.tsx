// Connection: the API key (write-only, shown masked), the service's base URL, the timeout and
// request signing; Test connection with the values typed, saved or not.
import { Alert, Button, Text } from "@medusajs/ui"
import { useState } from "react"
import { useTranslation } from "react-i18next"
import { type ProviderFieldPath, type ProviderSettings, type TestResult, useTestConnection } from "../../lib/settings-api"
import type { FieldSpec } from "../../lib/settings-form"
import type { SettingsForm } from "../../lib/use-settings-form"
import { Section, SettingField } from "./field"
import { TestResultBox } from "./test-result"

export const CONNECTION_FIELDS = [
  { path: "apiKey", kind: "secret", label: "apiKey", hint: true },
  { path: "baseUrl", kind: "text", label: "baseUrl" },
  { path: "timeoutMs", kind: "number", label: "timeoutMs" },
  { path: "signRequests", kind: "switch", label: "signRequests", hint: true },
] as const satisfies readonly FieldSpec<ProviderFieldPath>[]

const [apiKey, ...rest] = CONNECTION_FIELDS

/** Test connection's body: what the form holds now wins over what is saved. */
function testBody(form: SettingsForm): Record<string, unknown> {
  const text = (path: string) => String(form.draft[path]).trim()
  return {
    ...(text("apiKey") ? { apiKey: text("apiKey") } : {}),
    ...(text("baseUrl") ? { baseUrl: text("baseUrl") } : {}),
    ...(text("timeoutMs") ? { timeoutMs: Number(text("timeoutMs")) } : {}),
    signRequests: form.draft.signRequests,
  }
}

export function ConnectionSection({
  settings,
  encryptionConfigured,
  form,
}: {
  settings: ProviderSettings
  encryptionConfigured: boolean
  form: SettingsForm
}) {
  const { t } = useTranslation()
  const [test, setTest] = useState<TestResult | null>(null)
  const testConnection = useTestConnection(settings.id)
  const runTest = () => {
    setTest(null)
    testConnection.mutate(testBody(form), { onSuccess: setTest, onError: form.fail })
  }
  return (
    <Section title={t("payin.settings.connection")} testId="payin-section-connection">
      {!encryptionConfigured ? <Alert variant="warning">{t("payin.settings.encryptionMissing")}</Alert> : null}
      {settings.api_key.error ? <Alert variant="error">{t("payin.settings.apiKeyError", { message: settings.api_key.error })}</Alert> : null}
      <SettingField spec={apiKey} form={form} placeholder={settings.api_key.masked ?? ""}>
        <Text size="small" className="text-ui-fg-subtle" data-testid="payin-apikey-masked">
          {t("payin.settings.apiKeyCurrent", { masked: settings.api_key.masked ?? t("payin.settings.apiKeyNotSet") })}
        </Text>
      </SettingField>
      {rest.map((spec) => (
        <SettingField key={spec.path} spec={spec} form={form} />
      ))}
      <div className="flex flex-col gap-2">
        <div>
          <Button size="small" variant="secondary" onClick={runTest} isLoading={testConnection.isPending} data-testid="payin-test-connection">
            {testConnection.isPending ? t("payin.settings.testing") : t("payin.settings.testConnection")}
          </Button>
        </div>
        {test ? <TestResultBox result={test} /> : null}
      </div>
    </Section>
  )
}
