import { model } from "@medusajs/framework/utils"

/**
 * The payload hashes of webhook-inbox entries the retention job pruned: a callback delivered
 * again after its entry was pruned is still a duplicate (acknowledged, never applied again). Kept
 * as long as the daily webhook counters (webhookCounterRetentionDays); a few dozen bytes each.
 */
export const PayinWebhookHash = model
  .define("payin_webhook_hash", {
    id: model.id({ prefix: "payinwhh" }).primaryKey(),
    provider_id: model.text(),
    payload_hash: model.text(),
    pruned_at: model.dateTime(),
  })
  .indexes([
    { on: ["provider_id", "payload_hash"], unique: true },
    { on: ["pruned_at"] },
  ])
