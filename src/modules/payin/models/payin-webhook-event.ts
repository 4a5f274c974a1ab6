import { model } from "@medusajs/framework/utils"

export const PayinWebhookEvent = model
  .define("payin_webhook_event", {
    id: model.id({ prefix: "payinwh" }).primaryKey(),
    provider_id: model.text(),
    service_id: model.text(),
    status: model.text(),
    payload_hash: model.text(),
    raw_body: model.text(),
    state: model.enum(["received", "applied", "failed", "rejected"]).default("received"),
    attempts: model.number().default(0),
    duplicates: model.number().default(0),
    last_error: model.text().nullable(),
    next_attempt_at: model.dateTime().nullable(),
    applied_at: model.dateTime().nullable(),
    result: model.json().nullable(),
    /** Leased by the process applying it; past this another process may take it over. */
    claimed_until: model.dateTime().nullable(),
  })
  .indexes([
    { on: ["provider_id", "payload_hash"], unique: true },
    { on: ["state", "next_attempt_at"] },
    { on: ["created_at"], where: "state = 'received'" },
    { on: ["service_id"] },
    { on: ["applied_at"], where: "state = 'applied'" },
    { on: ["provider_id", "applied_at"], where: "state = 'applied'" },
    { on: ["provider_id", "updated_at"], where: "last_error IS NOT NULL" },
  ])
