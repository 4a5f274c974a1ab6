// Each insights figure links to the transactions list filtered to the pay-ins behind it.
import { INSIGHT_FLAGS, statusesOfPart } from "../../../status"

export type Period = { from: string; to: string; providerId?: string }

const unpaid = (part: Parameters<typeof statusesOfPart>[0]) => ({ status: statusesOfPart(part).join(","), paid: "false" })
const flagged = (figure: keyof typeof INSIGHT_FLAGS) => ({ flag: INSIGHT_FLAGS[figure].flags.join(",") })

/**
 * The list's filter for each figure of the funnel and of the exceptions (from status.ts, as the
 * rollups count them). `disputed` (ever in a dispute) has none: the list cannot filter on it.
 */
export const FIGURE_FILTERS: Record<string, Record<string, string>> = {
  created: {},
  offered: {},
  paid: { paid: "true" },
  ended_unpaid: unpaid("ended_unpaid"),
  open: unpaid("open"),
  disputed_unpaid: unpaid("disputed_unpaid"),
  failed: unpaid("failed"),
  underpaid: flagged("underpaid"),
  overpaid: flagged("overpaid"),
  stray: flagged("stray"),
}

export function listLink(period: Period, filter: Record<string, string> = {}): string {
  const q = new URLSearchParams({ created_from: period.from, created_to: period.to })
  if (period.providerId) q.set("provider_id", period.providerId)
  for (const [key, value] of Object.entries(filter)) if (value) q.set(key, value)
  return `/payin?${q}`
}

export function figureLink(period: Period, figure: string): string | null {
  const filter = FIGURE_FILTERS[figure]
  return filter ? listLink(period, filter) : null
}

/** "42 s", "4 min 10 s", "2 h 5 min", "3 d 4 h"; "—" for none. */
export function formatSeconds(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return "—"
  const s = Math.round(seconds)
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`
}

/** 0.5234 → "52.3%"; "—" for none. */
export function formatShare(share: number | null, locale = "en"): string {
  if (share === null || !Number.isFinite(share)) return "—"
  return new Intl.NumberFormat(locale, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(share)
}

/** The last `days` UTC days up to today: { from, to } (YYYY-MM-DD). */
export function lastDays(days: number, now = new Date()): { from: string; to: string } {
  const to = now.toISOString().slice(0, 10)
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10)
  return { from, to }
}
