import { model } from "@medusajs/framework/utils"

/**
 * The durable webhook inbox: every verified callback is stored here before it is acknowledged,
 * then applied; one that failed to apply is retried by the reconciliation job. Unverifiable
 * requests are never stored (only counted), so forged traffic cannot fill the table.
 */
export const PayinWebhookEvent = model
  .define("payin_webhook_event", {
    id: model.id({ prefix: "payinwh" }).primaryKey(),
    provider_id: model.text(),
    /** The service's transaction id and the status the callback reports. */
    service_id: model.text(),
    status: model.text(),
    /** sha256 of the canonical JSON of the body: the same transaction in the same state and data. */
    payload_hash: model.text(),
    raw_body: model.text(),
    /**
     * received: stored, not applied yet; applied; failed: will be retried at next_attempt_at;
     * rejected: verified but refused for good (a pay-in of another merchant account).
     */
    state: model.enum(["received", "applied", "failed", "rejected"]).default("received"),
    attempts: model.number().default(0),
    duplicates: model.number().default(0),
    last_error: model.text().nullable(),
    next_attempt_at: model.dateTime().nullable(),
    applied_at: model.dateTime().nullable(),
    /** What applying it did (status, changed, effects). */
    result: model.json().nullable(),
  })
  .indexes([
    { on: ["provider_id", "payload_hash"], unique: true },
    { on: ["state", "next_attempt_at"] },
    { on: ["service_id"] },
    // the retention job's selection: applied entries by age (src/modules/payin/inbox/inbox.ts, pruneApplied)
    { on: ["applied_at"], where: "state = 'applied'" },
    // webhook health: the newest failure of an instance without reading its whole inbox
    { on: ["provider_id", "updated_at"], where: "last_error IS NOT NULL" },
  ])
