import type { INotificationModuleService } from "@medusajs/framework/types"
import { MedusaModule } from "@medusajs/framework/modules-sdk"
import { Modules } from "@medusajs/framework/utils"

/**
 * The Notification Module as loaded in this process, for the health alerts: a module's own
 * container holds no other module (module isolation), and the health check runs from the payin
 * module's start hook in every server and worker, where no request or job container exists.
 */
export function loadedNotificationModule(): INotificationModuleService | null {
  const instance = MedusaModule.getModuleInstance(Modules.NOTIFICATION) as INotificationModuleService | Record<string, unknown> | undefined
  if (!instance) return null
  // one alias per registration: the module itself is its only entry in a store
  const service = typeof (instance as INotificationModuleService).createNotifications === "function" ? instance : Object.values(instance)[0]
  return service && typeof (service as INotificationModuleService).createNotifications === "function" ? (service as INotificationModuleService) : null
}
