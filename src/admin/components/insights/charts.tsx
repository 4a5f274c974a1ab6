// uPlot is imported only when a chart is drawn (a chunk of its own): the rest of the admin never downloads it.
// A canvas says nothing to a screen reader: each chart's figures are also a visually hidden table,
// and the canvas is hidden from assistive technology.
import { useEffect, useRef } from "react"
import { useTranslation } from "react-i18next"
import type uPlot from "uplot"
import type { Insights } from "../../lib/insights-api"
import { formatShare } from "./links"

const DAY = 86_400
/** What both charts share: the size, no legend (the caption says it), no cursor. */
const frame = (width: number) => ({ width, height: 220, legend: { show: false }, cursor: { show: false } })
const BLUE = "#3b82f6"
const GREEN = "#10b981"

/**
 * Every UTC day of the period with what was received that day (0 on a day without any), in the
 * currency money arrived in on the most days (the store's own, not one a shopper paid in once).
 */
export function dailySeries(figures: Insights): { days: number[]; amounts: number[]; currency: string | null } {
  const daysIn = (c: string) => figures.days.filter((d) => d.received_amount[c] !== undefined).length
  const currency = Object.keys(figures.amounts).reduce<string | null>((best, c) => (best === null || daysIn(c) > daysIn(best) ? c : best), null)
  const byDay = new Map(figures.days.map((d) => [d.day, d]))
  const days: number[] = []
  const amounts: number[] = []
  for (let at = Date.parse(`${figures.from}T00:00:00Z`) / 1000; at <= Date.parse(`${figures.to}T00:00:00Z`) / 1000; at += DAY) {
    const day = new Date(at * 1000).toISOString().slice(0, 10)
    days.push(at)
    amounts.push(currency ? Number(byDay.get(day)?.received_amount[currency] ?? 0) : 0)
  }
  return { days, amounts, currency }
}

type UPlot = typeof uPlot
let library: Promise<UPlot> | null = null
/** The layout rules of uPlot's stylesheet (uPlot.min.css, MIT): the rest is the admin's own look. */
const UPLOT_CSS =
  ".uplot,.uplot *{box-sizing:border-box}.uplot{line-height:1.5;width:min-content}.u-wrap{position:relative;user-select:none}" +
  ".u-over,.u-under{position:absolute}.u-under{overflow:hidden}.uplot canvas{display:block;position:relative;width:100%;height:100%}" +
  ".u-axis{position:absolute}.u-legend{display:none}"

/** uPlot, loaded on the first chart drawn (its layout rules put in the page once). */
const loadUPlot = (): Promise<UPlot> =>
  (library ??= import("uplot").then((m) => {
    if (!document.getElementById("payin-uplot-css")) {
      const style = document.createElement("style")
      style.id = "payin-uplot-css"
      style.textContent = UPLOT_CSS
      document.head.appendChild(style)
    }
    return m.default
  }))

/** A chart drawn into the returned element once uPlot is loaded, and again when `deps` change. */
function useChart(make: (U: UPlot, el: HTMLDivElement, width: number) => uPlot, failed: string, deps: unknown[]) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    let chart: uPlot | null = null
    let gone = false
    loadUPlot()
      .then((U) => {
        const el = ref.current
        if (gone || !el) return
        chart = make(U, el, Math.max(320, el.clientWidth))
        el.dataset.drawn = "true"
      })
      .catch((error: unknown) => {
        library = null // the next draw tries again
        if (!gone && ref.current) {
          ref.current.dataset.drawn = "failed"
          ref.current.textContent = `${failed} (${error instanceof Error ? error.message : String(error)})`
        }
      })
    return () => {
      gone = true
      chart?.destroy()
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps)
  return ref
}

export function InsightCharts({ figures }: { figures: Insights }) {
  const { t, i18n } = useTranslation()
  const daily = dailySeries(figures)
  const banks = figures.by_bank.filter((b) => b.key && b.offered > 0).slice(0, 12)
  const bars = (U: UPlot) => U.paths.bars!({ size: [0.6, 48] })
  const volume = useChart(
    (U, el, width) =>
      new U(
        {
          ...frame(width),
          // half a day either side: bars for the first and last days, one day drawn as a day
          scales: { x: { time: true, range: [daily.days[0] - DAY / 2, daily.days[daily.days.length - 1] + DAY / 2] } },
          axes: [{}, { values: (_u, ticks) => ticks.map((v) => new Intl.NumberFormat(i18n.language, { notation: "compact" }).format(v)) }],
          series: [{}, { label: daily.currency?.toUpperCase() ?? "", stroke: BLUE, fill: `${BLUE}55`, paths: bars(U), points: { show: false } }],
        },
        [daily.days, daily.amounts],
        el
      ),
    t("payin.insights.chartFailed"),
    [figures, i18n.language]
  )
  const conversion = useChart(
    (U, el, width) =>
      new U(
        {
          ...frame(width),
          scales: { x: { time: false, range: [-0.5, Math.max(banks.length - 0.5, 0.5)] }, y: { range: [0, 100] } },
          axes: [
            { values: (_u, ticks) => ticks.map((v) => (Number.isInteger(v) ? (banks[v]?.key ?? "") : "")), splits: () => banks.map((_b, i) => i) },
            { values: (_u, ticks) => ticks.map((v) => `${v}%`) },
          ],
          series: [{}, { label: "%", stroke: GREEN, fill: `${GREEN}55`, paths: bars(U), points: { show: false } }],
        },
        [banks.map((_b, i) => i), banks.map((b) => Math.round((b.conversion ?? 0) * 1000) / 10)],
        el
      ),
    t("payin.insights.chartFailed"),
    [figures, i18n.language]
  )
  const currency = daily.currency?.toUpperCase() ?? ""
  const amount = (value: number) => new Intl.NumberFormat(i18n.language, { maximumFractionDigits: 2 }).format(value)
  return (
    <div className="grid grid-cols-1 gap-4 px-6 py-4 lg:grid-cols-2" data-testid="payin-insights-charts">
      <figure>
        <figcaption className="txt-compact-small text-ui-fg-subtle mb-2">{t("payin.insights.volumeChart", { currency })}</figcaption>
        <div ref={volume} data-testid="payin-insights-volume-chart" aria-hidden="true" />
        <FiguresTable
          caption={t("payin.insights.volumeTable", { currency })}
          head={[t("payin.insights.day"), t("payin.insights.received")]}
          rows={daily.days.flatMap((at, i) => (daily.amounts[i] ? [[new Date(at * 1000).toISOString().slice(0, 10), amount(daily.amounts[i])]] : []))}
          testId="payin-insights-volume-table"
        />
      </figure>
      <figure>
        <figcaption className="txt-compact-small text-ui-fg-subtle mb-2">{t("payin.insights.bankChart")}</figcaption>
        <div ref={conversion} data-testid="payin-insights-bank-chart" aria-hidden="true" />
        <FiguresTable
          caption={t("payin.insights.bankTable")}
          head={[t("payin.insights.bank"), t("payin.insights.conversion")]}
          rows={banks.map((b) => [b.key ?? "", formatShare(b.conversion, i18n.language)])}
          testId="payin-insights-bank-table"
        />
      </figure>
    </div>
  )
}

/** A chart's figures as a table only assistive technology sees (Tailwind's sr-only). */
function FiguresTable({ caption, head, rows, testId }: { caption: string; head: [string, string]; rows: string[][]; testId: string }) {
  return (
    <table className="sr-only" data-testid={testId}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{head[0]}</th>
          <th scope="col">{head[1]}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([key, value]) => (
          <tr key={key}>
            <th scope="row">{key}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
