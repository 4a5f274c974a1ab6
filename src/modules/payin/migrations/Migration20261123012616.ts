import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261123012616 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_webhook_event" drop constraint if exists "payin_webhook_event_provider_id_payload_hash_unique";`);
    this.addSql(`alter table if exists "payin_webhook_counter" drop constraint if exists "payin_webhook_counter_provider_id_unique";`);
    this.addSql(`alter table if exists "payin_transaction" drop constraint if exists "payin_transaction_service_id_unique";`);
    this.addSql(`alter table if exists "payin_transaction" drop constraint if exists "payin_transaction_session_id_unique";`);
    this.addSql(`create table if not exists "payin_transaction" ("id" text not null, "provider_id" text not null, "session_id" text null, "service_id" text null, "status" text check ("status" in ('creating', 'failed', 'active', 'closed', 'canceled', 'dispute', 'checking', 're_calculation')) not null default 'creating', "amount" numeric not null, "currency_code" text not null, "fiat_amount" text null, "fiat_currency" text null, "method" text null, "bank" text null, "requisite" jsonb null, "payment_page_url" text null, "payment_collection_id" text null, "cart_id" text null, "order_id" text null, "expires_at" timestamptz null, "session_deleted_at" timestamptz null, "store_canceled_at" timestamptz null, "recalculated_at" timestamptz null, "captured_at" timestamptz null, "flags" jsonb null, "refunds" jsonb null, "service_data" jsonb null, "status_changed_at" timestamptz null, "last_error" text null, "raw_amount" jsonb not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "payin_transaction_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_deleted_at" ON "payin_transaction" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_transaction_session_id_unique" ON "payin_transaction" ("session_id") WHERE session_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_transaction_service_id_unique" ON "payin_transaction" ("service_id") WHERE service_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_status_created_at" ON "payin_transaction" ("status", "created_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_order_id" ON "payin_transaction" ("order_id") WHERE order_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_cart_id" ON "payin_transaction" ("cart_id") WHERE cart_id IS NOT NULL AND deleted_at IS NULL;`);

    this.addSql(`create table if not exists "payin_status_change" ("id" text not null, "from_status" text null, "to_status" text not null, "source" text not null, "note" text null, "service_data" jsonb null, "transaction_id" text not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "payin_status_change_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_status_change_transaction_id" ON "payin_status_change" ("transaction_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_status_change_deleted_at" ON "payin_status_change" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_status_change_transaction_id_created_at" ON "payin_status_change" ("transaction_id", "created_at") WHERE deleted_at IS NULL;`);

    this.addSql(`create table if not exists "payin_webhook_counter" ("id" text not null, "provider_id" text not null, "rejected" integer not null default 0, "last_rejected_at" timestamptz null, "last_rejection_reason" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "payin_webhook_counter_pkey" primary key ("id"));`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_webhook_counter_provider_id_unique" ON "payin_webhook_counter" ("provider_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_webhook_counter_deleted_at" ON "payin_webhook_counter" ("deleted_at") WHERE deleted_at IS NULL;`);

    this.addSql(`create table if not exists "payin_webhook_event" ("id" text not null, "provider_id" text not null, "service_id" text not null, "status" text not null, "payload_hash" text not null, "raw_body" text not null, "state" text check ("state" in ('received', 'applied', 'failed')) not null default 'received', "attempts" integer not null default 0, "duplicates" integer not null default 0, "last_error" text null, "next_attempt_at" timestamptz null, "applied_at" timestamptz null, "result" jsonb null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "payin_webhook_event_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_webhook_event_deleted_at" ON "payin_webhook_event" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_webhook_event_provider_id_payload_hash_unique" ON "payin_webhook_event" ("provider_id", "payload_hash") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_webhook_event_state_next_attempt_at" ON "payin_webhook_event" ("state", "next_attempt_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_webhook_event_service_id" ON "payin_webhook_event" ("service_id") WHERE deleted_at IS NULL;`);

    this.addSql(`alter table if exists "payin_status_change" add constraint "payin_status_change_transaction_id_foreign" foreign key ("transaction_id") references "payin_transaction" ("id") on update cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "payin_status_change" drop constraint if exists "payin_status_change_transaction_id_foreign";`);

    this.addSql(`drop table if exists "payin_transaction" cascade;`);

    this.addSql(`drop table if exists "payin_status_change" cascade;`);

    this.addSql(`drop table if exists "payin_webhook_counter" cascade;`);

    this.addSql(`drop table if exists "payin_webhook_event" cascade;`);
  }

}
