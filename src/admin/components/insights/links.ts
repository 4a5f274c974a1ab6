// Where each figure of the insights page leads: the transactions list filtered to the pay-ins
// behind it (the period's creation days, the instance, and the figure's own filter). Pure.

export type Period = { from: string; to: string; providerId?: string }

/** The list's filter for each figure of the funnel and of the exceptions. */
export const FIGURE_FILTERS: Record<string, Record<string, string>> = {
  created: {},
  offered: {},
  failed: { status: "failed" },
  paid: { paid: "true" },
  ended_unpaid: { status: "canceled", paid: "false" },
  open: { status: "creating,active", paid: "false" },
  disputed: { status: "dispute,checking,re_calculation" },
  underpaid: { flag: "underpayment" },
  overpaid: { flag: "overpayment" },
  stray: { flag: "stray_payment,late_payment" },
}

/** The transactions list (`/payin?…`) of the period, narrowed by `filter`. */
export function listLink(period: Period, filter: Record<string, string> = {}): string {
  const q = new URLSearchParams({ created_from: period.from, created_to: period.to })
  if (period.providerId) q.set("provider_id", period.providerId)
  for (const [key, value] of Object.entries(filter)) if (value) q.set(key, value)
  return `/payin?${q}`
}

/** A figure's link (null for figures without one). */
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
