import { model } from "@medusajs/framework/utils"

export const PayinWebhookCounter = model
  .define("payin_webhook_counter", {
    id: model.id({ prefix: "payinwc" }).primaryKey(),
    provider_id: model.text(),
    day: model.dateTime(),
    accepted: model.number().default(0),
    duplicates: model.number().default(0),
    rejected: model.number().default(0),
    last_delivery_at: model.dateTime().nullable(),
    last_rejected_at: model.dateTime().nullable(),
    last_rejection_reason: model.text().nullable(),
  })
  .indexes([
    { on: ["provider_id", "day"], unique: true },
    { on: ["day"] },
  ])
