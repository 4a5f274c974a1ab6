import { LoaderOptions } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { Db } from "../db"
import type { PayinProviderOptionsInput } from "../settings/options"
import { parseProviderOptions } from "../settings/parse"
import { verifyStoredKeys } from "../settings/verify-keys"

/**
 * Start-up check: a key stored from the admin that cannot be decrypted (PAYIN_ENCRYPTION_KEY
 * missing, changed or too short) stops the boot with a message that says what to do, instead of
 * webhooks and payments failing later; a key made with PAYIN_ENCRYPTION_KEY_PREVIOUS is moved to
 * the current secret. Instances configured with the same key and base URL (PAYIN_API_KEY fills
 * every instance) are one merchant account: a warning says so. Not run by `medusa db:migrate`.
 */
export default async function verifySettingsLoader({ container, logger, options }: LoaderOptions): Promise<void> {
  const pg = container.resolve(ContainerRegistrationKeys.PG_CONNECTION) as Db
  const moved = await verifyStoredKeys(pg, process.env, { reencrypt: true })
  if (moved) {
    logger?.info(`payin: re-encrypted ${moved} stored API key(s) with the current PAYIN_ENCRYPTION_KEY`)
  }
  for (const group of sharedAccounts((options as { providers?: PayinProviderOptionsInput[] } | undefined)?.providers ?? [])) {
    logger?.warn(
      `payin: provider instances ${group.map((id) => `"${id}"`).join(", ")} use the same API key and base URL: ` +
        `they are one merchant account, and a webhook to either may change the other's pay-ins. ` +
        `Give each its own key (PAYIN_<ID>_API_KEY) if they are different accounts.`
    )
  }
}

/** Instance ids grouped by the key and base URL medusa-config (and the environment) give them. */
export function sharedAccounts(providers: PayinProviderOptionsInput[]): string[][] {
  const groups = new Map<string, string[]>()
  for (const input of providers) {
    const p = parseProviderOptions(input)
    if (!p.apiKey) continue
    const key = `${p.apiKey}\n${p.baseUrl ?? ""}`
    groups.set(key, [...(groups.get(key) ?? []), p.id])
  }
  return [...groups.values()].filter((g) => g.length > 1)
}
