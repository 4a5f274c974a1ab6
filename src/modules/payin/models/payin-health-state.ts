import { model } from "@medusajs/framework/utils"

// One row per signal and scope (a provider id, or "plugin"): since when it is in its state, which
// alerts its current incident got, and those still to deliver. A state change and its alert are
// recorded in one short transaction; the alert is sent afterwards under a key made from the stored
// incident, so a retry in any process after any crash is deduplicated by Medusa (health/deliver.ts).
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
    /** Alerts recorded with the state change, not yet delivered (health/deliver.ts). */
    pending_alerts: model.json(),
    alert_lease_until: model.dateTime().nullable(),
    alert_attempts: model.number().default(0),
  })
  .indexes([{ on: ["scope", "signal"], unique: true }])
