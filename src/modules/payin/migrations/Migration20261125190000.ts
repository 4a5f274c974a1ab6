import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// The hashes of pruned webhook-inbox entries (duplicates stay duplicates after retention). A new,
// empty table: nothing is rewritten.
export class Migration20261125190000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table if not exists "payin_webhook_hash" ("id" text not null, "provider_id" text not null, "payload_hash" text not null, "pruned_at" timestamptz not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "payin_webhook_hash_pkey" primary key ("id"));`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_webhook_hash_provider_id_payload_hash_unique" ON "payin_webhook_hash" ("provider_id", "payload_hash") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_webhook_hash_pruned_at" ON "payin_webhook_hash" ("pruned_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_webhook_hash_deleted_at" ON "payin_webhook_hash" ("deleted_at") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "payin_webhook_hash" cascade;`);
  }

}
