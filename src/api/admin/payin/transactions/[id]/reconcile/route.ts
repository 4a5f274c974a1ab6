import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { reconcileWithService } from "../../../../../../money-path/lookup"
import { detailView, serviceError } from "../../../helpers"
import { notFound, payinModule } from "../../../../../utils"

export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const payin = payinModule(req)
  const [exists] = await payin.listPayinTransactions({ id: req.params.id }, { select: ["id"] })
  if (!exists) {
    notFound(res, `No pay-in with id "${req.params.id}"`)
    return
  }
  let result
  try {
    result = await reconcileWithService(req.scope, req.params.id, "admin")
  } catch (error) {
    if (serviceError(res, error)) return
    throw error
  }
  res.json({ result, ...(await detailView(payin, req.params.id)) })
}
