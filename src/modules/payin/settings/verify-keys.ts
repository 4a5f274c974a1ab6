import type { Db } from "../db"
import { PayinSecretError, SecretBox } from "./secrets"

/** Start-up check: every key stored from the admin decrypts with the secrets in the environment. */
export async function verifyStoredKeys(
  pg: Pick<Db, "raw">,
  env: Record<string, string | undefined> = process.env,
  { reencrypt = false }: { reencrypt?: boolean } = {}
): Promise<number> {
  let rows: { scope: string; api_key_encrypted: string }[]
  try {
    rows = (
      await pg.raw(
        "select scope, api_key_encrypted from payin_setting where deleted_at is null and api_key_encrypted is not null",
        []
      )
    ).rows
  } catch (e) {
    if ((e as { code?: string }).code === "42P01") return 0 // not migrated yet
    throw e
  }
  if (!rows.length) return 0
  const box = new SecretBox(env)
  let reencrypted = 0
  for (const row of rows) {
    let plain: string
    try {
      plain = box.decrypt(row.api_key_encrypted, row.scope)
    } catch (e) {
      const reason = e instanceof PayinSecretError ? e.message : String(e)
      throw new Error(`medusa-plugin-payin: the API key stored from the admin for "${row.scope}" cannot be used: ${reason}`)
    }
    if (reencrypt && box.isStale(row.api_key_encrypted)) {
      // made with PAYIN_ENCRYPTION_KEY_PREVIOUS: move it to the current secret
      await pg.raw(
        "update payin_setting set api_key_encrypted = ?, revision = revision + 1, updated_at = now() where scope = ? and api_key_encrypted = ?",
        [box.encrypt(plain, row.scope), row.scope, row.api_key_encrypted]
      )
      reencrypted++
    }
  }
  return reencrypted
}
