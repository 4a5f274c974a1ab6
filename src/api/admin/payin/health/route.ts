import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { webhookBaseUrl, UNKNOWN_BASE_URL } from "../../../../modules/payin/webhook-url"
import { payinModule } from "../../../utils"

/** The health of every provider instance and of the plugin's jobs, from the database (src/api/README.md "Health"). */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const payin = payinModule(req)
  const base = webhookBaseUrl(req)
  res.json(await payin.health.report(payin.healthEnv(base === UNKNOWN_BASE_URL ? null : base)))
}
