import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261123035154 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_setting" drop constraint if exists "payin_setting_scope_unique";`);
    this.addSql(`create table if not exists "payin_setting" ("id" text not null, "scope" text not null, "values" jsonb null, "api_key_encrypted" text null, "api_key_last4" text null, "api_key_updated_at" timestamptz null, "revision" integer not null default 0, "updated_by" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "payin_setting_pkey" primary key ("id"));`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_setting_scope_unique" ON "payin_setting" ("scope") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_setting_deleted_at" ON "payin_setting" ("deleted_at") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "payin_setting" cascade;`);
  }

}
