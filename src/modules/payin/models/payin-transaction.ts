import { model } from "@medusajs/framework/utils"
import { LEDGER_STATUSES, OPEN_STATUSES } from "../../../status"
import { PayinStatusChange } from "./payin-status-change"

// One row per pay-in, kept whatever Medusa does with the session, and written before the pay-in is requested, so no pay-in the store asks for goes unrecorded.
export const PayinTransaction = model
  .define("payin_transaction", {
    id: model.id({ prefix: "payintx" }).primaryKey(),
    provider_id: model.text(),
    /** Medusa payment session id = the service's `extra.externalTransactionId`. */
    session_id: model.text().nullable(),
    service_id: model.text().nullable(),
    status: model.enum([...LEDGER_STATUSES]).default("creating"),
    amount: model.bigNumber(),
    currency_code: model.text(),
    fiat_amount: model.text().nullable(),
    /** The fiat amount of the last `closed`: what the service credited, and what a capture books. */
    credited_amount: model.text().nullable(),
    assigned_amount: model.text().nullable(),
    fiat_currency: model.text().nullable(),
    method: model.text().nullable(),
    bank: model.text().nullable(),
    requisite: model.json().nullable(),
    payment_page_url: model.text().nullable(),
    /** The storefront's success_url / failure_url of its session, as checked at creation (pay again reuses them). */
    return_urls: model.json().nullable(),
    payment_collection_id: model.text().nullable(),
    cart_id: model.text().nullable(),
    order_id: model.text().nullable(),
    expires_at: model.dateTime().nullable(),
    /** Medusa deleted the session (the cart changed); a payment into this pay-in is stray money. */
    session_deleted_at: model.dateTime().nullable(),
    /** The store treats the pay-in as over (expired, order canceled): a late payment is flagged, never attached. */
    store_canceled_at: model.dateTime().nullable(),
    pay_again_until: model.dateTime().nullable(),
    pay_again_started: model.boolean().default(false),
    via_pay_again: model.boolean().default(false),
    reattach_requested_at: model.dateTime().nullable(),
    disputed_at: model.dateTime().nullable(),
    recalculated_at: model.dateTime().nullable(),
    captured_at: model.dateTime().nullable(),
    paid_at: model.dateTime().nullable(),
    effect_pending: model.enum(["capture", "cancel_order"]).nullable(),
    effect_attempts: model.number().default(0),
    next_effect_at: model.dateTime().nullable(),
    effect_fence: model.number().default(0),
    flags: model.json().nullable(),
    /** The sorted keys of `flags` (null when none), indexable for the admin's flag filters; written with every write of `flags`. */
    flag_kinds: model.array().nullable(),
    refunds: model.json().nullable(),
    service_data: model.json().nullable(),
    status_changed_at: model.dateTime().nullable(),
    last_error: model.text().nullable(),
    history: model.hasMany(() => PayinStatusChange, { mappedBy: "transaction" }),
  })
  .indexes([
    { on: ["session_id"], unique: true, where: "session_id IS NOT NULL" },
    // unique per provider instance: two merchant accounts (two services) may issue the same id
    { on: ["service_id", "provider_id"], unique: true, where: "service_id IS NOT NULL" },
    { on: ["payment_collection_id"], where: "payment_collection_id IS NOT NULL" },
    { on: ["created_at", "id"] },
    { on: ["status", "created_at", "id"] },
    { on: ["provider_id", "created_at", "id"] },
    { on: ["bank", "created_at", "id"] },
    { on: ["method", "created_at", "id"] },
    // has_flags, flag + status and the prefix searches use partial indexes the migrations create in SQL.
    { on: ["flag_kinds"], type: "GIN", where: "flag_kinds IS NOT NULL" },
    { on: ["paid_at", "id"], where: "paid_at IS NOT NULL" },
    { name: "IDX_payin_transaction_open_id", on: ["id"], where: `status IN (${OPEN_STATUSES.map((s) => `'${s}'`).join(", ")})` },
    { name: "IDX_payin_transaction_effect_due", on: ["id", "next_effect_at"], where: "effect_pending IS NOT NULL" },
  ])
