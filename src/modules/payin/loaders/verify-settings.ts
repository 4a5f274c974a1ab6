import { LoaderOptions } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { Db } from "../db"
import type { PayinProviderOptionsInput } from "../settings/options"
import { parseProviderOptions } from "../settings/parse"
import { verifyStoredKeys } from "../settings/verify-keys"

// Fails the boot when a stored key cannot be decrypted, instead of payments failing later; not run by `medusa db:migrate`.
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
