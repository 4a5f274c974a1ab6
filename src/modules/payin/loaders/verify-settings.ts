import { LoaderOptions } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import PayinModuleService from "../service"

/**
 * Start-up check: a key stored from the admin that cannot be decrypted (PAYIN_ENCRYPTION_KEY
 * missing, changed or too short) stops the boot with a message that says what to do, instead of
 * webhooks and payments failing later; a key made with PAYIN_ENCRYPTION_KEY_PREVIOUS is moved to
 * the current secret. Not run by `medusa db:migrate`.
 */
export default async function verifySettingsLoader({ container, logger }: LoaderOptions): Promise<void> {
  const pg = container.resolve(ContainerRegistrationKeys.PG_CONNECTION) as Parameters<
    typeof PayinModuleService.verifyStoredKeys
  >[0]
  const moved = await PayinModuleService.verifyStoredKeys(pg, process.env, { reencrypt: true })
  if (moved) {
    logger?.info(`payin: re-encrypted ${moved} stored API key(s) with the current PAYIN_ENCRYPTION_KEY`)
  }
}
