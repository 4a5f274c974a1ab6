import { model } from "@medusajs/framework/utils"

/**
 * Settings changed from the admin, one row per scope: "plugin" (plugin-wide) or "provider:<id>"
 * (one payment provider instance). Only the fields the merchant set are stored (`values`); the
 * rest comes from medusa-config, the environment or the defaults. The API key is stored
 * encrypted (AES-256-GCM under PAYIN_ENCRYPTION_KEY), never in `values`.
 */
export const PayinSetting = model.define("payin_setting", {
  id: model.id({ prefix: "payinset" }).primaryKey(),
  scope: model.text().unique(),
  values: model.json().nullable(),
  /** `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts); null when no key is stored here. */
  api_key_encrypted: model.text().nullable(),
  /** Last four characters of the stored key, for the masked display. */
  api_key_last4: model.text().nullable(),
  api_key_updated_at: model.dateTime().nullable(),
  /** Incremented on every change: other instances compare it to their cached copy. */
  revision: model.number().default(0),
  updated_by: model.text().nullable(),
})
