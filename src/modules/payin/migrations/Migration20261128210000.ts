import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// Health (issue 39): an alert is recorded with its state change and sent afterwards (pending_alerts,
// leased while a process sends it); a job run records the interval it ran under; the last applied
// webhook per instance is read from an index, whatever the size of the inbox; a pay-in keeps the
// return URLs its storefront sent (pay again leads back the same way, whatever became of the session).
export class Migration20261128210000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_health_state" add column if not exists "pending_alerts" jsonb not null default '[]', add column if not exists "alert_lease_until" timestamptz null, add column if not exists "alert_attempts" integer not null default 0;`);
    // the default only fills the rows already there: the model has none (every insert writes it)
    this.addSql(`alter table if exists "payin_health_state" alter column "pending_alerts" drop default;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_health_state_pending_alerts" ON "payin_health_state" ("alert_lease_until") WHERE pending_alerts <> '[]'::jsonb AND deleted_at IS NULL;`);
    this.addSql(`alter table if exists "payin_job_run" add column if not exists "interval_seconds" integer null;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_webhook_event_provider_id_applied_at" ON "payin_webhook_event" ("provider_id", "applied_at") WHERE state = 'applied' AND deleted_at IS NULL;`);
    this.addSql(`alter table if exists "payin_transaction" add column if not exists "return_urls" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "payin_transaction" drop column if exists "return_urls";`);
    this.addSql(`drop index if exists "IDX_payin_webhook_event_provider_id_applied_at";`);
    this.addSql(`alter table if exists "payin_job_run" drop column if exists "interval_seconds";`);
    this.addSql(`drop index if exists "IDX_payin_health_state_pending_alerts";`);
    this.addSql(`alter table if exists "payin_health_state" drop column if exists "pending_alerts", drop column if exists "alert_lease_until", drop column if exists "alert_attempts";`);
  }

}
