import { model } from "@medusajs/framework/utils"

/** Per provider instance: requests refused before verification, counted (never stored one by one). */
export const PayinWebhookCounter = model.define("payin_webhook_counter", {
  id: model.id({ prefix: "payinwc" }).primaryKey(),
  provider_id: model.text().unique(),
  rejected: model.number().default(0),
  last_rejected_at: model.dateTime().nullable(),
  last_rejection_reason: model.text().nullable(),
})
