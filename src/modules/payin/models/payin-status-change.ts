import { model } from "@medusajs/framework/utils"
import { PayinTransaction } from "./payin-transaction"

// Lean on purpose (integration-tests/README.md "Database size"): a serial id; the service's whole answer stays on the ledger row.
export const PayinStatusChange = model.define("payin_status_change", {
  id: model.autoincrement().primaryKey(),
  from_status: model.text().nullable(),
  to_status: model.text(),
  source: model.text(),
  note: model.text().nullable(),
  service_data: model.json().nullable(),
  transaction: model.belongsTo(() => PayinTransaction, { mappedBy: "history" }),
})
