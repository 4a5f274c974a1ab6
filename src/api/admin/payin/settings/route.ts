import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { pluginSettingsPatchSchema } from "../../../../modules/payin/settings/overrides"
import { allSettingsView, settingsChange } from "../helpers"
import { parseOr400, payinModule } from "../../../utils"

export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  res.json(await allSettingsView(req))
}

export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const patch = parseOr400(res, pluginSettingsPatchSchema, req.body)
  if (!patch) return
  const saved = await settingsChange(res, () => payinModule(req).settings.updatePlugin(patch, req.auth_context?.actor_id))
  if (!saved) return
  res.json(await allSettingsView(req))
}
