import { model } from "@medusajs/framework/utils"
import { LEDGER_STATUSES, OPEN_STATUSES } from "../../../status"
import { PayinStatusChange } from "./payin-status-change"

/**
 * The ledger: one row per pay-in, kept whatever Medusa does with the payment session (a cart
 * change deletes the session; the pay-in stays payable at the service until its window ends).
 * The row is written before the pay-in is requested, so nothing the service knows about is
 * unknown to the store.
 */
export const PayinTransaction = model
  .define("payin_transaction", {
    id: model.id({ prefix: "payintx" }).primaryKey(),
    /** Medusa provider id, e.g. `pp_payin_default`. */
    provider_id: model.text(),
    /** Medusa payment session id = the service's `extra.externalTransactionId`. */
    session_id: model.text().nullable(),
    /** The service's transaction id (UUID); null until the service answered. */
    service_id: model.text().nullable(),
    status: model.enum([...LEDGER_STATUSES]).default("creating"),
    /** Amount of the payment session, major units of `currency_code`. */
    amount: model.bigNumber(),
    currency_code: model.text(),
    /** The service's current fiat amount (2-decimal string): what was received once closed; changes after a recalculation. */
    fiat_amount: model.text().nullable(),
    /** The amount the service assigned when it created the pay-in (what the shopper was asked to pay). */
    assigned_amount: model.text().nullable(),
    fiat_currency: model.text().nullable(),
    method: model.text().nullable(),
    bank: model.text().nullable(),
    /** Payee details the shopper pays to (bank, owner, account/card/phone, SBP number). */
    requisite: model.json().nullable(),
    payment_page_url: model.text().nullable(),
    payment_collection_id: model.text().nullable(),
    cart_id: model.text().nullable(),
    order_id: model.text().nullable(),
    /** End of the payment window as the store computes it (service createdAt + window). */
    expires_at: model.dateTime().nullable(),
    /** Medusa deleted the session (the cart changed); a payment into this pay-in is stray money. */
    session_deleted_at: model.dateTime().nullable(),
    /** The store treats the pay-in as over (expired, order canceled): a late payment is flagged, never attached. */
    store_canceled_at: model.dateTime().nullable(),
    /**
     * Pay again: until when the shopper of this pay-in's order may ask for new payment details
     * (the order's grace period, from the first of its pay-ins that ended unpaid); its order is
     * canceled only after it, with nothing paid. Null: no grace period.
     */
    pay_again_until: model.dateTime().nullable(),
    /** Pay again: this pay-in's end began its order's grace period (counted once per order in the insights). */
    pay_again_started: model.boolean().default(false),
    /** Pay again: made by POST /store/payin/pay-again (new details for an order whose pay-in ended). */
    via_pay_again: model.boolean().default(false),
    /** When the pay-in first moved into a dispute (dispute, checking or re_calculation). */
    disputed_at: model.dateTime().nullable(),
    /** When the service recalculated the amount after a dispute (fiat_amount is then the new amount). */
    recalculated_at: model.dateTime().nullable(),
    /** When the apply-path had Medusa capture the payment. */
    captured_at: model.dateTime().nullable(),
    /** When the pay-in was first closed (the money arrived); it never returns to active or canceled after. */
    paid_at: model.dateTime().nullable(),
    /**
     * A Medusa effect the status asks for that has not happened yet (capture the payment, cancel
     * the order), set in the same commit as the status change and cleared when done or flagged.
     */
    effect_pending: model.enum(["capture", "cancel_order"]).nullable(),
    /** Failed attempts at the pending effect; after the plugin's effectRetryLimit it is flagged (and still retried). */
    effect_attempts: model.number().default(0),
    /** When the pending effect is due again after a failure (capped exponential backoff); null: due now. */
    next_effect_at: model.dateTime().nullable(),
    /**
     * Fencing token of the pending effect: moved on by each run that claims it (under the
     * per-pay-in lock); a run whose token is no longer the row's was overtaken and stops.
     */
    effect_fence: model.number().default(0),
    /** Exceptions for the merchant: { [flag]: { at, ...details } } (late_payment, stray_payment, ...). */
    flags: model.json().nullable(),
    /**
     * The keys of `flags`, sorted (null when there are none): the same facts in a column the
     * admin's flag filters can index. Written only with `flags`, by the ledger (FLAG_KINDS_SQL in
     * ledger/rows.ts: addFlag, and the insert of an unknown pay-in in ledger.ts).
     */
    flag_kinds: model.array().nullable(),
    /** Refunds recorded in manual-refund mode. */
    refunds: model.json().nullable(),
    /** The last Transaction object seen from the service. */
    service_data: model.json().nullable(),
    status_changed_at: model.dateTime().nullable(),
    /** Why creation failed, when status is `failed`. */
    last_error: model.text().nullable(),
    history: model.hasMany(() => PayinStatusChange, { mappedBy: "transaction" }),
  })
  .indexes([
    // the webhook apply path's lookups (by the service's id, the session, the collection)
    { on: ["session_id"], unique: true, where: "session_id IS NOT NULL" },
    // unique per provider instance: two merchant accounts (two services) may issue the same id
    { on: ["service_id", "provider_id"], unique: true, where: "service_id IS NOT NULL" },
    { on: ["payment_collection_id"], where: "payment_collection_id IS NOT NULL" },
    // the admin's list, newest first, and its keyset (cursor) pages; the export by creation time
    { on: ["created_at", "id"] },
    // the same per status, and per provider instance (an instance's list and export)
    { on: ["status", "created_at", "id"] },
    { on: ["provider_id", "created_at", "id"] },
    // the list filtered by bank or method (the insights' links), newest first
    { on: ["bank", "created_at", "id"] },
    { on: ["method", "created_at", "id"] },
    // the flag filters (flag_kinds && …); has_flags and flag + status use two partial indexes
    // created by the migration in SQL (INCLUDE flag_kinds), as do the prefix searches
    // (text_pattern_ops on the ids, order_id and cart_id included, and on the requisite numbers)
    { on: ["flag_kinds"], type: "GIN", where: "flag_kinds IS NOT NULL" },
    // the export by closing time
    { on: ["paid_at", "id"], where: "paid_at IS NOT NULL" },
    // reconciliation reads the open pay-ins by id without reading the closed ones …
    { name: "IDX_payin_transaction_open_id", on: ["id"], where: `status IN (${OPEN_STATUSES.map((s) => `'${s}'`).join(", ")})` },
    // … and finds pay-ins whose effect is pending and due the same way (by id, next_effect_at read from the index)
    { name: "IDX_payin_transaction_effect_due", on: ["id", "next_effect_at"], where: "effect_pending IS NOT NULL" },
  ])
