import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261124143715 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_webhook_counter" drop constraint if exists "payin_webhook_counter_provider_id_day_unique";`);
    this.addSql(`drop index if exists "IDX_payin_webhook_counter_provider_id_unique";`);

    // The counters become per day and count every delivery (webhook health reads them, not the
    // inbox, which retention prunes). An existing refused total counts as today's.
    this.addSql(`alter table if exists "payin_webhook_counter" add column if not exists "day" timestamptz not null default (date_trunc('day', now() at time zone 'UTC') at time zone 'UTC'), add column if not exists "accepted" integer not null default 0, add column if not exists "duplicates" integer not null default 0, add column if not exists "last_delivery_at" timestamptz null;`);
    this.addSql(`alter table if exists "payin_webhook_counter" alter column "day" drop default;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_webhook_counter_provider_id_day_unique" ON "payin_webhook_counter" ("provider_id", "day") WHERE deleted_at IS NULL;`);
    // the deliveries already in the inbox, by the day they arrived
    this.addSql(`insert into "payin_webhook_counter" (id, provider_id, day, accepted, duplicates, rejected, last_delivery_at, last_rejected_at)
      select 'payinwc_' || md5(provider_id || d::text), provider_id, d,
        count(*) filter (where state <> 'rejected'), coalesce(sum(duplicates), 0), count(*) filter (where state = 'rejected'),
        max(greatest(created_at, updated_at)), max(updated_at) filter (where state = 'rejected')
      from (select *, date_trunc('day', created_at at time zone 'UTC') at time zone 'UTC' as d from "payin_webhook_event" where deleted_at is null) e
      group by provider_id, d
      on conflict (provider_id, day) where deleted_at is null do update set
        accepted = excluded.accepted, duplicates = excluded.duplicates,
        rejected = "payin_webhook_counter".rejected + excluded.rejected, last_delivery_at = excluded.last_delivery_at;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_webhook_counter_day" ON "payin_webhook_counter" ("day") WHERE deleted_at IS NULL;`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_webhook_event_applied_at" ON "payin_webhook_event" ("applied_at") WHERE state = 'applied' AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_webhook_event_provider_id_updated_at" ON "payin_webhook_event" ("provider_id", "updated_at") WHERE last_error IS NOT NULL AND deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "IDX_payin_webhook_counter_provider_id_day_unique";`);
    this.addSql(`drop index if exists "IDX_payin_webhook_counter_day";`);
    // back to one refused total per instance: the days are summed into the latest one
    this.addSql(`update "payin_webhook_counter" c set "rejected" = t.total from (select provider_id, sum(rejected) as total, max(day) as day from "payin_webhook_counter" group by provider_id) t where c.provider_id = t.provider_id and c.day = t.day;`);
    this.addSql(`delete from "payin_webhook_counter" c using "payin_webhook_counter" n where c.provider_id = n.provider_id and c.day < n.day;`);
    this.addSql(`alter table if exists "payin_webhook_counter" drop column if exists "day", drop column if exists "accepted", drop column if exists "duplicates", drop column if exists "last_delivery_at";`);

    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_webhook_counter_provider_id_unique" ON "payin_webhook_counter" ("provider_id") WHERE deleted_at IS NULL;`);

    this.addSql(`drop index if exists "IDX_payin_webhook_event_applied_at";`);
    this.addSql(`drop index if exists "IDX_payin_webhook_event_provider_id_updated_at";`);
  }

}
