import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// Shopper notifications owed and their outcomes (README "Notifications": retries). A new, empty
// table: nothing is rewritten, so it is quick on a populated ledger.
export class Migration20261125063000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table if not exists "payin_notification" ("id" text not null, "order_id" text not null, "kind" text not null, "transaction_id" text null, "status" text not null default 'due', "attempts" integer not null default 0, "last_error" text null, "next_attempt_at" timestamptz null, "sent_at" timestamptz null, "notification_id" text null, "trigger" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "payin_notification_pkey" primary key ("id"));`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_notification_order_id_kind_unique" ON "payin_notification" ("order_id", "kind") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_notification_transaction_id" ON "payin_notification" ("transaction_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_notification_next_attempt_at" ON "payin_notification" ("next_attempt_at") WHERE next_attempt_at IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_notification_deleted_at" ON "payin_notification" ("deleted_at") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "payin_notification" cascade;`);
  }

}
