import { model } from "@medusajs/framework/utils"

export const PayinSetting = model.define("payin_setting", {
  id: model.id({ prefix: "payinset" }).primaryKey(),
  scope: model.text().unique(),
  values: model.json().nullable(),
  api_key_encrypted: model.text().nullable(),
  api_key_last4: model.text().nullable(),
  api_key_updated_at: model.dateTime().nullable(),
  /** Incremented on every change: other instances compare it to their cached copy. */
  revision: model.number().default(0),
  updated_by: model.text().nullable(),
})
