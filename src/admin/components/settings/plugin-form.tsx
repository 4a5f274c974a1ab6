// The plugin-wide settings, one form for every provider instance: reconciliation, retention,
// health and alerts, saved through POST /admin/payin/settings.
import { Button, Container, Heading, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { type PluginFieldPath, type PluginSettings, useSavePlugin } from "../../lib/settings-api"
import { useSettingsForm } from "../../lib/use-settings-form"
import { ALERTS_FIELDS, AlertsSection } from "./alerts"
import { RECONCILIATION_FIELDS, ReconciliationSection } from "./reconciliation"
import { RETENTION_FIELDS, RetentionSection } from "./retention"

const PLUGIN_FIELDS = [...RECONCILIATION_FIELDS, ...RETENTION_FIELDS, ...ALERTS_FIELDS]

// Every plugin option is in a section: a new option does not compile until it is placed.
type Unplaced = Exclude<PluginFieldPath, (typeof PLUGIN_FIELDS)[number]["path"]>
const everyOptionPlaced: [Unplaced] extends [never] ? true : Unplaced = true
void everyOptionPlaced

export function PluginSettingsForm({ plugin }: { plugin: PluginSettings }) {
  const { t } = useTranslation()
  const form = useSettingsForm({
    values: plugin.values,
    sources: plugin.sources,
    revision: plugin.revision,
    specs: PLUGIN_FIELDS,
    mutation: useSavePlugin(),
  })
  return (
    <Container className="divide-y p-0" data-testid="payin-plugin-settings">
      <div className="px-6 py-4">
        <Heading level="h1">{t("payin.settings.pluginWide")}</Heading>
        <Text size="small" className="text-ui-fg-subtle">{t("payin.settings.pluginWideHint")}</Text>
      </div>
      <ReconciliationSection form={form} />
      <RetentionSection form={form} />
      <AlertsSection form={form} />
      <div className="flex justify-end px-6 py-4">
        <Button onClick={form.save} isLoading={form.pending} data-testid="payin-plugin-save">
          {form.pending ? t("payin.common.saving") : t("payin.common.save")}
        </Button>
      </div>
    </Container>
  )
}
