import { MedusaService } from "@medusajs/framework/utils"
import { PayinTransaction } from "./models/payin-transaction"

/** Data the store owns about its pay-ins: the ledger (more tables join it in later versions). */
class PayinModuleService extends MedusaService({ PayinTransaction }) {}

export default PayinModuleService
