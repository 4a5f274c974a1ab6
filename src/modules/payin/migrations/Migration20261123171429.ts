import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261123171429 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_webhook_event" drop constraint if exists "payin_webhook_event_state_check";`);

    this.addSql(`alter table if exists "payin_transaction" add column if not exists "assigned_amount" text null, add column if not exists "paid_at" timestamptz null, add column if not exists "effect_pending" text check ("effect_pending" in ('capture', 'cancel_order')) null, add column if not exists "effect_attempts" integer not null default 0;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_payment_collection_id" ON "payin_transaction" ("payment_collection_id") WHERE payment_collection_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_effect_attempts_id" ON "payin_transaction" ("effect_attempts", "id") WHERE effect_pending IS NOT NULL AND deleted_at IS NULL;`);

    this.addSql(`alter table if exists "payin_webhook_event" add constraint "payin_webhook_event_state_check" check("state" in ('received', 'applied', 'failed', 'rejected'));`);

    // rows recorded before: a closed pay-in was paid when it closed; the amount first assigned is the
    // one before any recalculation (from the history's first answer), else the current one. One
    // UPDATE writes each row once, with the first answers read in one pass over the history: 2.1 s
    // at 20,000 pay-ins, 163 s at 1,000,000 with 3,000,000 status changes. The first version (two
    // UPDATEs, a history lookup per row that no partial index served, so its time grows with
    // pay-ins × history) took 806 s at 20,000 (integration-tests/bench/migrations.bench.ts)
    this.addSql(`update "payin_transaction" t set
      "paid_at" = coalesce(t."paid_at", case when t."status" = 'closed' then coalesce(t."status_changed_at", t."updated_at") end),
      "assigned_amount" = case when t."assigned_amount" is null and t."fiat_amount" is not null then coalesce(x."first_amount", t."fiat_amount") else t."assigned_amount" end
    from (
      select s."id", f."first_amount" from "payin_transaction" s
      left join (
        select distinct on (h."transaction_id") h."transaction_id", h."service_data"->>'fiatAmount' as "first_amount"
        from "payin_status_change" h where h."service_data" ? 'fiatAmount'
        order by h."transaction_id", h."created_at", h."id"
      ) f on f."transaction_id" = s."id"
      where (s."status" = 'closed' and s."paid_at" is null) or (s."assigned_amount" is null and s."fiat_amount" is not null)
    ) x
    where x."id" = t."id";`);
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
