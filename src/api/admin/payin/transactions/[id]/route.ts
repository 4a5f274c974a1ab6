import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { detailView } from "../../helpers"
import { notFound, payinModule } from "../../../../utils"

export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const view = await detailView(payinModule(req), req.params.id)
  if (!view) {
    notFound(res, `No pay-in with id "${req.params.id}"`)
    return
  }
  res.json(view)
}
