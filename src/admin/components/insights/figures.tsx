// The insights' figures as tiles: the funnel (its parts add up to the pay-ins created), the
// exceptions with their sums, time to pay and pay again. Each tile links to the transactions list
// behind it, where the list can filter on it.
import { Heading, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { Link } from "react-router-dom"
import { formatAmountWithCode } from "../../../money/display"
import type { Insights } from "../../lib/insights-api"
import { type Period, figureLink, formatSeconds, formatShare } from "./links"

function Tile({ id, label, value, detail, to }: { id: string; label: string; value: string; detail?: string; to?: string | null }) {
  const body = (
    <div className="rounded-lg border px-4 py-3" data-testid={`payin-insight-${id}`}>
      <Text size="small" className="text-ui-fg-subtle">{label}</Text>
      <Heading level="h2" data-testid={`payin-insight-${id}-value`}>{value}</Heading>
      {detail ? <Text size="xsmall" className="text-ui-fg-muted" data-testid={`payin-insight-${id}-detail`}>{detail}</Text> : null}
    </div>
  )
  return to ? <Link to={to} className="hover:bg-ui-bg-base-hover block rounded-lg">{body}</Link> : body
}

const amounts = (figures: Insights, key: "paid" | "underpaid" | "overpaid" | "stray" | "received") =>
  Object.entries(figures.amounts)
    .filter(([, a]) => Number(a[key]) !== 0)
    .map(([currency, a]) => formatAmountWithCode(a[key], currency.toUpperCase()))
    .join(", ")

export function InsightFigures({ figures, period }: { figures: Insights; period: Period }) {
  const { t, i18n } = useTranslation()
  const n = (value: number) => new Intl.NumberFormat(i18n.language).format(value)
  const tile = (id: keyof Insights["totals"], detail?: string) => (
    <Tile id={id} label={t(`payin.insights.${id}`)} value={n(figures.totals[id])} detail={detail} to={figureLink(period, id)} />
  )
  return (
    <div className="flex flex-col gap-4 px-6 py-4">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-6" data-testid="payin-insights-funnel">
        {tile("created", t("payin.insights.createdHint"))}
        {tile("paid", amounts(figures, "paid"))}
        {tile("ended_unpaid")}
        {tile("open")}
        {tile("disputed_unpaid")}
        {tile("failed")}
      </div>
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
        {tile("offered")}
        <Tile id="conversion" label={t("payin.insights.conversion")} value={formatShare(figures.conversion, i18n.language)} detail={t("payin.insights.conversionHint")} />
        <Tile
          id="time-to-pay"
          label={t("payin.insights.timeToPay")}
          value={formatSeconds(figures.time_to_pay.p50_seconds)}
          detail={t("payin.insights.p90", { value: formatSeconds(figures.time_to_pay.p90_seconds) })}
          to={figureLink(period, "paid")}
        />
        {tile("underpaid", amounts(figures, "underpaid"))}
        {tile("overpaid", amounts(figures, "overpaid"))}
        {tile("stray", amounts(figures, "stray"))}
        {tile("disputed")}
        <Tile
          id="pay-again"
          label={t("payin.insights.payAgain")}
          value={formatShare(figures.pay_again.saved_share, i18n.language)}
          detail={t("payin.insights.payAgainHint", { paid: n(figures.pay_again.paid), started: n(figures.pay_again.started) })}
        />
      </div>
    </div>
  )
}
