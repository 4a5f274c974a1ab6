import { ModuleProvider, Modules } from "@medusajs/framework/utils"
import { PayinProviderService } from "./service"

export { PayinProviderService }

export default ModuleProvider(Modules.PAYMENT, { services: [PayinProviderService] })
