import { model } from "@medusajs/framework/utils"
import { PayinTransaction } from "./payin-transaction"

/** Status history of a pay-in: every change, where it came from, and what the service sent. */
export const PayinStatusChange = model
  .define("payin_status_change", {
    id: model.id({ prefix: "payinsc" }).primaryKey(),
    from_status: model.text().nullable(),
    to_status: model.text(),
    /** create | webhook | lookup | store | admin */
    source: model.text(),
    note: model.text().nullable(),
    service_data: model.json().nullable(),
    transaction: model.belongsTo(() => PayinTransaction, { mappedBy: "history" }),
  })
  .indexes([{ on: ["transaction_id", "created_at"] }])
