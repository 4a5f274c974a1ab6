// Conversion by bank and by method: offered, paid, ended unpaid and the share paid, each row
// linking to the transactions list of that bank or method in the period.
import { Heading, Table } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { Link } from "react-router-dom"
import type { Insights } from "../../lib/insights-api"
import { type Period, formatShare, listLink } from "./links"

export function Breakdown({ rows, by, period }: { rows: Insights["by_bank"]; by: "bank" | "method"; period: Period }) {
  const { t, i18n } = useTranslation()
  const n = (value: number) => new Intl.NumberFormat(i18n.language).format(value)
  return (
    <div className="px-6 py-4" data-testid={`payin-insights-by-${by}`}>
      <Heading level="h3" className="mb-2">{t(by === "bank" ? "payin.insights.byBank" : "payin.insights.byMethod")}</Heading>
      <Table>
        <Table.Header>
          <Table.Row>
            <Table.HeaderCell>{t(by === "bank" ? "payin.insights.bank" : "payin.insights.method")}</Table.HeaderCell>
            <Table.HeaderCell className="text-right">{t("payin.insights.offered")}</Table.HeaderCell>
            <Table.HeaderCell className="text-right">{t("payin.insights.paid")}</Table.HeaderCell>
            <Table.HeaderCell className="text-right">{t("payin.insights.ended_unpaid")}</Table.HeaderCell>
            <Table.HeaderCell className="text-right">{t("payin.insights.conversion")}</Table.HeaderCell>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {rows.map((row) => (
            <Table.Row key={row.key} data-testid={`payin-insights-${by}-row`} data-key={row.key}>
              <Table.Cell>
                {row.key ? <Link to={listLink(period, { [by]: row.key })} className="text-ui-fg-interactive-hover">{row.key}</Link> : t("payin.insights.unknown")}
              </Table.Cell>
              <Table.Cell className="text-right">{n(row.offered)}</Table.Cell>
              <Table.Cell className="text-right">
                {row.key ? <Link to={listLink(period, { [by]: row.key, paid: "true" })} className="text-ui-fg-interactive-hover">{n(row.paid)}</Link> : n(row.paid)}
              </Table.Cell>
              <Table.Cell className="text-right">{n(row.ended_unpaid)}</Table.Cell>
              <Table.Cell className="text-right" data-testid={`payin-insights-${by}-conversion`}>{formatShare(row.conversion, i18n.language)}</Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
    </div>
  )
}
