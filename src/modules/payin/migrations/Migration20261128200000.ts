import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// Health (issue 34): minute counters of service calls and refused webhooks, the signals' states,
// and two small partial indexes for the health's figures at a million pay-ins: status changes
// made by a lookup (reconciliation), and paid pay-ins not captured.
export class Migration20261128200000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table if not exists "payin_health_counter" ("id" text not null, "provider_id" text not null, "minute" timestamptz not null, "kind" text not null, "count" integer not null default 0, "total_ms" integer not null default 0, "max_ms" integer not null default 0, "last_at" timestamptz not null, "detail" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "payin_health_counter_pkey" primary key ("id"));`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_health_counter_provider_id_minute_kind_unique" ON "payin_health_counter" ("provider_id", "minute", "kind") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_health_counter_minute" ON "payin_health_counter" ("minute") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_health_counter_deleted_at" ON "payin_health_counter" ("deleted_at") WHERE deleted_at IS NULL;`);

    this.addSql(`create table if not exists "payin_health_state" ("id" text not null, "scope" text not null, "signal" text not null, "state" text not null, "since" timestamptz not null, "figure" jsonb null, "checked_at" timestamptz not null, "incident_at" timestamptz null, "alerted_at" timestamptz null, "last_alert_at" timestamptz null, "last_alert_error" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "payin_health_state_pkey" primary key ("id"));`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_health_state_scope_signal_unique" ON "payin_health_state" ("scope", "signal") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_health_state_deleted_at" ON "payin_health_state" ("deleted_at") WHERE deleted_at IS NULL;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_status_change_lookup_created_at" ON "payin_status_change" ("created_at") WHERE source = 'lookup' AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_paid_uncaptured" ON "payin_transaction" ("provider_id", "paid_at") WHERE paid_at IS NOT NULL AND captured_at IS NULL AND deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "IDX_payin_transaction_paid_uncaptured";`);
    this.addSql(`drop index if exists "IDX_payin_status_change_lookup_created_at";`);
    this.addSql(`drop table if exists "payin_health_state" cascade;`);
    this.addSql(`drop table if exists "payin_health_counter" cascade;`);
  }

}
