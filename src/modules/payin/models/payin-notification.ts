import { model } from "@medusajs/framework/utils"

export const PayinNotification = model
  .define("payin_notification", {
    id: model.id({ prefix: "payinnt" }).primaryKey(),
    order_id: model.text(),
    kind: model.text(),
    transaction_id: model.text().nullable(),
    /** due (decided, not sent yet) | sent | failed (retried while next_attempt_at is set) | skipped (no longer due) */
    status: model.text().default("due"),
    attempts: model.number().default(0),
    last_error: model.text().nullable(),
    next_attempt_at: model.dateTime().nullable(),
    sent_at: model.dateTime().nullable(),
    notification_id: model.text().nullable(),
    trigger: model.text().nullable(),
  })
  .indexes([
    { on: ["order_id", "kind"], unique: true },
    { on: ["transaction_id"] },
    { on: ["next_attempt_at"], where: "next_attempt_at IS NOT NULL" },
  ])
