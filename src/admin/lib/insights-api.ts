import { useQuery } from "@tanstack/react-query"
import type { Insights } from "../../modules/payin/insights/insights"
import { adminFetch, adminUrl } from "./api"

export type { Insights }

const keys = {
  insights: (query: string) => ["payin", "insights", query] as const,
}

export function useInsights(query: URLSearchParams) {
  const qs = query.toString()
  return useQuery({ queryKey: keys.insights(qs), queryFn: () => adminFetch<Insights>(`/admin/payin/insights?${qs}`) })
}

/** The same figures as a CSV download (a plain link: the browser sends the session cookie). */
export function insightsCsvUrl(query: URLSearchParams): string {
  const q = new URLSearchParams(query)
  q.set("format", "csv")
  return adminUrl(`/admin/payin/insights?${q}`)
}
