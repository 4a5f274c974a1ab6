import { csvLine } from "../ledger/csv"
import type { Insights } from "./insights"

/**
 * The insights as CSV (RFC 4180, formula-safe cells): one line per figure,
 * `section,key,metric,value`: `period` (from, to, provider), `funnel` (each counter), `amount`
 * (per currency), `conversion` (overall), `bank` and `method` (offered, paid, ended_unpaid,
 * conversion per bank or method), `time_to_pay` (count, p50_seconds, p90_seconds), `pay_again`
 * (started, created, paid, saved_share), `day` (created, paid, received and received_amount.<CUR>
 * per UTC day).
 */
export function insightsCsv(figures: Insights): string {
  const lines: string[] = [csvLine(["section", "key", "metric", "value"])]
  const add = (section: string, key: string, metric: string, value: string | number | null) => lines.push(csvLine([section, key, metric, value]))
  add("period", "", "from", figures.from)
  add("period", "", "to", figures.to)
  add("period", "", "provider_id", figures.provider_id ?? "all")
  for (const [metric, value] of Object.entries(figures.totals)) add("funnel", "", metric, value)
  for (const [currency, amounts] of Object.entries(figures.amounts)) {
    for (const [metric, value] of Object.entries(amounts)) add("amount", currency, metric, value)
  }
  add("conversion", "", "paid_of_offered", figures.conversion)
  for (const [section, rows] of [["bank", figures.by_bank], ["method", figures.by_method]] as const) {
    for (const row of rows) {
      add(section, row.key, "offered", row.offered)
      add(section, row.key, "paid", row.paid)
      add(section, row.key, "ended_unpaid", row.ended_unpaid)
      add(section, row.key, "conversion", row.conversion)
    }
  }
  for (const [metric, value] of Object.entries(figures.time_to_pay)) add("time_to_pay", "", metric, value)
  for (const [metric, value] of Object.entries(figures.pay_again)) add("pay_again", "", metric, value)
  for (const day of figures.days) {
    add("day", day.day, "created", day.created)
    add("day", day.day, "paid", day.paid)
    add("day", day.day, "received", day.received)
    for (const [currency, amount] of Object.entries(day.received_amount)) add("day", day.day, `received_amount.${currency}`, amount)
  }
  return lines.join("")
}
