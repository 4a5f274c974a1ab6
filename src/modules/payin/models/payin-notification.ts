import { model } from "@medusajs/framework/utils"

/**
 * Each shopper notification the plugin owes an order (one per order and kind: instructions, paid,
 * expired) and its outcome, so one that failed to send, or never went out (a crash between the
 * decision and the send), is sent again by the retry job with backoff and a limit. `sent` is
 * final: a notification that succeeded is never sent again.
 */
export const PayinNotification = model
  .define("payin_notification", {
    id: model.id({ prefix: "payinnt" }).primaryKey(),
    order_id: model.text(),
    /** instructions | paid | expired */
    kind: model.text(),
    /** The ledger row (pay-in) it is about. */
    transaction_id: model.text().nullable(),
    /** due (decided, not sent yet) | sent | failed (retried while next_attempt_at is set) | skipped (no longer due) */
    status: model.text().default("due"),
    attempts: model.number().default(0),
    last_error: model.text().nullable(),
    /** When the retry job sends it again; null once sent, skipped, or out of attempts. */
    next_attempt_at: model.dateTime().nullable(),
    sent_at: model.dateTime().nullable(),
    /** The Notification Module's row. */
    notification_id: model.text().nullable(),
    /** What asked for it last (order.placed, payin.captured, payin.expired, payment.captured, retry). */
    trigger: model.text().nullable(),
  })
  .indexes([
    { on: ["order_id", "kind"], unique: true },
    { on: ["transaction_id"] },
    { on: ["next_attempt_at"], where: "next_attempt_at IS NOT NULL" },
  ])
