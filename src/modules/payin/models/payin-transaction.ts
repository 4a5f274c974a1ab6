import { model } from "@medusajs/framework/utils"

/** Statuses of a pay-in at the service (spec: States and transitions). */
export const PAYIN_STATUSES = ["active", "closed", "canceled", "dispute", "checking", "re_calculation"] as const

/**
 * The ledger: one row per pay-in created at the service, kept whatever Medusa does with the
 * payment session (a cart change deletes the session, the pay-in stays payable until it expires).
 */
export const PayinTransaction = model
  .define("payin_transaction", {
    id: model.id({ prefix: "payintx" }).primaryKey(),
    /** Medusa provider id, e.g. `pp_payin_default`. */
    provider_id: model.text(),
    /** Medusa payment session id, sent to the service as `extra.externalTransactionId`. */
    session_id: model.text(),
    /** The service's transaction id (UUID); null until the service answered. */
    service_id: model.text().nullable(),
    status: model.enum([...PAYIN_STATUSES]).default("active"),
    /** Amount requested from the service, in major units of `currency_code`. */
    amount: model.bigNumber(),
    currency_code: model.text(),
    /** Last Transaction object seen from the service (never contains the API key). */
    service_data: model.json().nullable(),
    expires_at: model.dateTime().nullable(),
  })
  .indexes([
    { on: ["session_id"], unique: true },
    { on: ["service_id"], unique: true, where: "service_id IS NOT NULL" },
    { on: ["status"] },
  ])
