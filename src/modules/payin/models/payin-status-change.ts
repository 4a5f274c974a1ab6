import { model } from "@medusajs/framework/utils"
import { PayinTransaction } from "./payin-transaction"

/**
 * Status history of a pay-in: every change, where it came from, and what of the service's answer
 * explains it (`service_data`: the amount when it changed, a dispute's amounts and checks; never
 * the whole answer, which the ledger row holds). Lean on purpose (integration-tests/README.md
 * "Database size"): a serial id, and the one index on transaction_id its readers use.
 */
export const PayinStatusChange = model.define("payin_status_change", {
  id: model.autoincrement().primaryKey(),
  from_status: model.text().nullable(),
  to_status: model.text(),
  /** create | webhook | lookup | store | admin */
  source: model.text(),
  note: model.text().nullable(),
  service_data: model.json().nullable(),
  transaction: model.belongsTo(() => PayinTransaction, { mappedBy: "history" }),
})
