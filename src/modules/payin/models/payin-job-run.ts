import { model } from "@medusajs/framework/utils"

export const PayinJobRun = model.define("payin_job_run", {
  id: model.id({ prefix: "payinjr" }).primaryKey(),
  name: model.text().unique(),
  last_run_at: model.dateTime(),
  last_report: model.json().nullable(),
  runs: model.number().default(0),
  /** The interval the job ran under: an overdue job is judged by it (job-runs.ts). */
  interval_seconds: model.number().nullable(),
})
