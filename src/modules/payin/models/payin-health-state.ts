import { model } from "@medusajs/framework/utils"

// One row per signal and scope (a provider id, or "plugin"): since when it is in its state, and
// which alerts its current incident got. Every process's check locks the row it updates, so one
// alert goes out per incident however many servers and workers check (health/state.ts).
export const PayinHealthState = model
  .define("payin_health_state", {
    id: model.id({ prefix: "payinhs" }).primaryKey(),
    scope: model.text(),
    signal: model.text(),
    state: model.text(),
    since: model.dateTime(),
    figure: model.json().nullable(),
    checked_at: model.dateTime(),
    incident_at: model.dateTime().nullable(),
    alerted_at: model.dateTime().nullable(),
    last_alert_at: model.dateTime().nullable(),
    last_alert_error: model.text().nullable(),
  })
  .indexes([{ on: ["scope", "signal"], unique: true }])
