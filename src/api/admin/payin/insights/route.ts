import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { insightsCsv } from "../../../../modules/payin/insights/csv"
import { parseOr400, payinModule } from "../../../utils"
import { insightsQuerySchema } from "./validators"

/**
 * GET /admin/payin/insights?from=YYYY-MM-DD&to=YYYY-MM-DD&provider_id=pp_payin_<id>&format=json|csv
 *
 * How pay-ins went over a period of UTC days (default: the last 30, at most 731), for one instance
 * or all: the funnel, conversion by bank and by method, time to pay, under/over/stray payments,
 * received per day, pay again. Read from the daily rollups (src/api/README.md "Insights").
 * `format=csv`: the same figures as a CSV download (section, key, metric, value).
 */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const query = parseOr400(res, insightsQuerySchema, req.query)
  if (!query) return
  const figures = await payinModule(req).insights.figures({ from: query.from, to: query.to, providerId: query.provider_id })
  if (query.format === "csv") {
    res.setHeader("content-type", "text/csv; charset=utf-8")
    res.setHeader("content-disposition", `attachment; filename="payin-insights-${query.from}-${query.to}.csv"`)
    res.send(insightsCsv(figures))
    return
  }
  res.json(figures)
}
