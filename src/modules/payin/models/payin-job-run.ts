import { model } from "@medusajs/framework/utils"

export const PayinJobRun = model.define("payin_job_run", {
  id: model.id({ prefix: "payinjr" }).primaryKey(),
  name: model.text().unique(),
  last_run_at: model.dateTime(),
  last_report: model.json().nullable(),
  runs: model.number().default(0),
})
