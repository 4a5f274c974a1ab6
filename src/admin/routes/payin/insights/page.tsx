// Insights: how pay-ins went over a period, for one provider instance or all: the funnel, the
// exceptions, time to pay, pay again, received per day and conversion by bank and method, each
// figure linking to the transactions behind it; the charts load their library only when drawn.
import { defineRouteConfig } from "@medusajs/admin-sdk"
import { Container, Heading, Text } from "@medusajs/ui"
import { useMemo } from "react"
import { useTranslation } from "react-i18next"
import { useSearchParams } from "react-router-dom"
import { ErrorText } from "../../../components/common"
import { Breakdown } from "../../../components/insights/breakdown"
import { InsightCharts } from "../../../components/insights/charts"
import { InsightFigures } from "../../../components/insights/figures"
import { lastDays } from "../../../components/insights/links"
import { PeriodBar } from "../../../components/insights/period-bar"
import { insightsCsvUrl, useInsights } from "../../../lib/insights-api"
import { useSettings } from "../../../lib/settings-api"

const InsightsPage = () => {
  const { t } = useTranslation()
  const [params, setParams] = useSearchParams()
  const fallback = lastDays(30)
  const from = params.get("from") || fallback.from
  const to = params.get("to") || fallback.to
  const providerId = params.get("provider_id") ?? ""
  const query = useMemo(() => {
    const q = new URLSearchParams({ from, to })
    if (providerId) q.set("provider_id", providerId)
    return q
  }, [from, to, providerId])
  const { data, error, isLoading } = useInsights(query)
  const settings = useSettings()
  const update = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params)
    for (const [key, value] of Object.entries(changes)) (value ? next.set(key, value) : next.delete(key))
    setParams(next)
  }
  const period = { from, to, providerId: providerId || undefined }
  return (
    <Container className="divide-y p-0" data-testid="payin-insights-page">
      <div className="px-6 py-4">
        <Heading level="h1">{t("payin.insights.title")}</Heading>
        <Text size="small" className="text-ui-fg-subtle">{t("payin.insights.subtitle")}</Text>
      </div>
      <PeriodBar
        from={from}
        to={to}
        providerId={providerId}
        providers={(settings.data?.providers ?? []).map((p) => p.provider_id)}
        csvUrl={insightsCsvUrl(query)}
        update={update}
      />
      {data?.rebuild.pending ? (
        <Text size="small" className="text-ui-fg-error px-6 py-3" data-testid="payin-insights-rebuilding">
          {t("payin.insights.rebuilding", { done: data.rebuild.done })}
        </Text>
      ) : null}
      {error ? <ErrorText error={error} /> : null}
      {isLoading || !data ? (
        <Text size="small" className="text-ui-fg-subtle px-6 py-4">{t("payin.common.loading")}</Text>
      ) : (
        <>
          <InsightFigures figures={data} period={period} />
          <InsightCharts figures={data} />
          <Breakdown rows={data.by_bank} by="bank" period={period} />
          <Breakdown rows={data.by_method} by="method" period={period} />
        </>
      )}
    </Container>
  )
}

export const config = defineRouteConfig({
  label: "payin.insights.menu",
  translationNs: "translation",
})

export default InsightsPage
