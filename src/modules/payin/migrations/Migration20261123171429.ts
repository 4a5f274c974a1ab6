import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261123171429 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_webhook_event" drop constraint if exists "payin_webhook_event_state_check";`);

    this.addSql(`alter table if exists "payin_transaction" add column if not exists "assigned_amount" text null, add column if not exists "paid_at" timestamptz null, add column if not exists "effect_pending" text check ("effect_pending" in ('capture', 'cancel_order')) null, add column if not exists "effect_attempts" integer not null default 0;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_payment_collection_id" ON "payin_transaction" ("payment_collection_id") WHERE payment_collection_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_effect_attempts_id" ON "payin_transaction" ("effect_attempts", "id") WHERE effect_pending IS NOT NULL AND deleted_at IS NULL;`);

    this.addSql(`alter table if exists "payin_webhook_event" add constraint "payin_webhook_event_state_check" check("state" in ('received', 'applied', 'failed', 'rejected'));`);

    // rows recorded before: a closed pay-in was paid when it closed; the amount first assigned is the
    // one before any recalculation (from the history's first answer), else the current one
    this.addSql(`update "payin_transaction" set "paid_at" = coalesce("status_changed_at", "updated_at") where "status" = 'closed' and "paid_at" is null;`);
    this.addSql(`update "payin_transaction" t set "assigned_amount" = coalesce((select h."service_data"->>'fiatAmount' from "payin_status_change" h where h."transaction_id" = t."id" and h."service_data" ? 'fiatAmount' order by h."created_at", h."id" limit 1), t."fiat_amount") where t."assigned_amount" is null and t."fiat_amount" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "payin_webhook_event" drop constraint if exists "payin_webhook_event_state_check";`);

    this.addSql(`drop index if exists "IDX_payin_transaction_payment_collection_id";`);
    this.addSql(`drop index if exists "IDX_payin_transaction_effect_attempts_id";`);
    this.addSql(`alter table if exists "payin_transaction" drop column if exists "assigned_amount", drop column if exists "paid_at", drop column if exists "effect_pending", drop column if exists "effect_attempts";`);

    // the earlier schema had no `rejected`: an entry refused for good is kept as `failed` (never
    // retried either), so the old constraint holds over a populated inbox
    this.addSql(`update "payin_webhook_event" set "state" = 'failed', "next_attempt_at" = null where "state" = 'rejected';`);
    this.addSql(`alter table if exists "payin_webhook_event" add constraint "payin_webhook_event_state_check" check("state" in ('received', 'applied', 'failed'));`);
  }

}
