import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { providerSettingsPatchSchema } from "../../../../../modules/payin/settings/overrides"
import { providerView, settingsChange } from "../../helpers"
import { notFound, parseOr400, payinModule } from "../../../../utils"

export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const settings = await payinModule(req).settings.provider(req.params.id, 0)
  if (!settings) {
    notFound(res, `No pay-in provider instance "${req.params.id}" in this store`)
    return
  }
  res.json(providerView(req, settings))
}

export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const payin = payinModule(req)
  if (!payin.settings.configuredProvider(req.params.id)) {
    notFound(res, `No pay-in provider instance "${req.params.id}" in this store`)
    return
  }
  const patch = parseOr400(res, providerSettingsPatchSchema, req.body)
  if (!patch) return
  const saved = await settingsChange(res, () => payin.settings.updateProvider(req.params.id, patch, req.auth_context?.actor_id))
  if (!saved) return
  res.json(providerView(req, saved))
}
