import { model } from "@medusajs/framework/utils"

// Per provider instance, minute and kind ("call:<operation>:<outcome>", "webhook:accepted",
// "webhook:duplicate", "webhook:refused:<code>"): what the health's last-hour figures and the
// webhook delivery totals add up, written in batches by every process (counters/counters.ts).
export const PayinHealthCounter = model
  .define("payin_health_counter", {
    id: model.id({ prefix: "payinhc" }).primaryKey(),
    provider_id: model.text(),
    minute: model.dateTime(),
    kind: model.text(),
    count: model.number().default(0),
    total_ms: model.number().default(0),
    max_ms: model.number().default(0),
    last_at: model.dateTime(),
    detail: model.text().nullable(),
  })
  .indexes([
    { on: ["provider_id", "minute", "kind"], unique: true },
    { on: ["minute"] },
  ])
