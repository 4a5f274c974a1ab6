import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { insightsCsv } from "../../../../modules/payin/insights/csv"
import { parseOr400, payinModule } from "../../../utils"
import { insightsQuerySchema } from "./validators"

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
