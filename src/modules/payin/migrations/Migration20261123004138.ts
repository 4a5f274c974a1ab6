import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261123004138 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_transaction" drop constraint if exists "payin_transaction_service_id_unique";`);
    this.addSql(`alter table if exists "payin_transaction" drop constraint if exists "payin_transaction_session_id_unique";`);
    this.addSql(`create table if not exists "payin_transaction" ("id" text not null, "provider_id" text not null, "session_id" text not null, "service_id" text null, "status" text check ("status" in ('active', 'closed', 'canceled', 'dispute', 'checking', 're_calculation')) not null default 'active', "amount" numeric not null, "currency_code" text not null, "service_data" jsonb null, "expires_at" timestamptz null, "raw_amount" jsonb not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "payin_transaction_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_deleted_at" ON "payin_transaction" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_transaction_session_id_unique" ON "payin_transaction" ("session_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_transaction_service_id_unique" ON "payin_transaction" ("service_id") WHERE service_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_status" ON "payin_transaction" ("status") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "payin_transaction" cascade;`);
  }

}
