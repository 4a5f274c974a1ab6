import { model } from "@medusajs/framework/utils"

// A callback delivered again after its inbox entry was pruned is still a duplicate.
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
