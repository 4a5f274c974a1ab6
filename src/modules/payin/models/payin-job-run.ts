import { model } from "@medusajs/framework/utils"

/**
 * The last run of each of the plugin's scheduled jobs (one row per job), written by whichever
 * worker ran it: the admin shows it, so a store whose processes run no jobs (servers only) sees
 * that nothing reconciles.
 */
export const PayinJobRun = model.define("payin_job_run", {
  id: model.id({ prefix: "payinjr" }).primaryKey(),
  name: model.text().unique(),
  last_run_at: model.dateTime(),
  /** The last run's report (counts, duration); never a secret. */
  last_report: model.json().nullable(),
  runs: model.number().default(0),
})
