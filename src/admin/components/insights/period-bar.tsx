// The insights page's controls: the period (UTC days, with 7/30/90/365-day shortcuts), the
// provider instance, and the CSV download of the same figures. Each change writes the URL.
import { Button, Input, Select } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { lastDays } from "./links"

export function PeriodBar({
  from,
  to,
  providerId,
  providers,
  csvUrl,
  update,
}: {
  from: string
  to: string
  providerId: string
  providers: string[]
  csvUrl: string
  update: (changes: Record<string, string>) => void
}) {
  const { t } = useTranslation()
  return (
    <div className="flex flex-wrap items-end gap-2 px-6 py-4" data-testid="payin-insights-period">
      <label className="flex flex-col gap-1">
        <span className="txt-compact-small text-ui-fg-subtle">{t("payin.insights.from")}</span>
        <Input type="date" size="small" value={from} onChange={(e) => e.target.value && update({ from: e.target.value })} data-testid="payin-insights-from" />
      </label>
      <label className="flex flex-col gap-1">
        <span className="txt-compact-small text-ui-fg-subtle">{t("payin.insights.to")}</span>
        <Input type="date" size="small" value={to} onChange={(e) => e.target.value && update({ to: e.target.value })} data-testid="payin-insights-to" />
      </label>
      {[7, 30, 90, 365].map((days) => (
        <Button key={days} size="small" variant="secondary" onClick={() => update(lastDays(days))} data-testid={`payin-insights-last-${days}`}>
          {t("payin.insights.lastDays", { days })}
        </Button>
      ))}
      <Select value={providerId || "__all"} onValueChange={(v) => update({ provider_id: v === "__all" ? "" : v })} size="small">
        <Select.Trigger data-testid="payin-insights-provider" aria-label={t("payin.insights.provider")}>
          <Select.Value />
        </Select.Trigger>
        <Select.Content>
          <Select.Item value="__all">{t("payin.insights.allProviders")}</Select.Item>
          {providers.map((id) => (
            <Select.Item key={id} value={id}>{id}</Select.Item>
          ))}
        </Select.Content>
      </Select>
      <a href={csvUrl} download className="txt-compact-small-plus text-ui-fg-interactive-hover ml-auto" data-testid="payin-insights-csv">
        {t("payin.insights.csv")}
      </a>
    </div>
  )
}
