import { model } from "@medusajs/framework/utils"

/**
 * Per provider instance and UTC day: webhook deliveries accepted (verified and stored), repeated
 * (duplicates acknowledged) and refused (before verification, or verified but refused for good).
 * Counted in memory and added here every few seconds, so forged traffic costs one row a day and
 * webhook health reads at most one row per kept day, however large the inbox. Days older than
 * the plugin's webhookCounterRetentionDays are pruned.
 */
export const PayinWebhookCounter = model
  .define("payin_webhook_counter", {
    id: model.id({ prefix: "payinwc" }).primaryKey(),
    provider_id: model.text(),
    /** Midnight UTC of the day counted. */
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
