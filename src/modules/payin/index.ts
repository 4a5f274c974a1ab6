import { Module } from "@medusajs/framework/utils"
import { PAYIN_MODULE } from "./key"
import verifySettingsLoader from "./loaders/verify-settings"
import PayinModuleService from "./service"

export { PAYIN_MODULE }
export { PayinModuleService }

export default Module(PAYIN_MODULE, { service: PayinModuleService, loaders: [verifySettingsLoader] })
