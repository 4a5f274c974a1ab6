import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// Insights (issue 26): daily rollups of the ledger that its own writes maintain.
//
// - Two indexes for the transactions list filtered by bank or by method (newest first).
// - payin_transaction gains `disputed_at` (the first move into a dispute; backfilled from the
//   status history), `pay_again_started` (the pay-in whose end began its order's grace period) and
//   `via_pay_again` (a pay-in made by POST /store/payin/pay-again). Columns without a default or
//   with a constant one: no table rewrite.
// - payin_rollup_day: per UTC day, provider, currency, bank and method, what the pay-ins created
//   that day became (the cohort's counters), and what was received that day (`received*`, by the
//   day the money arrived). payin_rollup_pay_time: the same cohorts' time from creation to payment,
//   as a histogram (15 s buckets up to 10 min, 1 min up to an hour, 10 min up to a day, then hours).
// - payin_rollup_apply(row, sign) is the one rule of what a pay-in counts for. A trigger on
//   payin_transaction runs it in the writing transaction (minus the old row, plus the new one) when
//   a column it reads changed, so the rollups never disagree with the rows; the rebuild command
//   (and its check) runs the same function over the rows.
// - payin_rollup_rebuild: the rebuild's position; while one runs, the trigger leaves rows past it
//   to the rebuild (each batch takes the table in SHARE mode: no write is in flight while it reads).
export class Migration20261127100000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_transaction" add column if not exists "disputed_at" timestamptz null;`);
    this.addSql(`alter table if exists "payin_transaction" add column if not exists "pay_again_started" boolean not null default false;`);
    this.addSql(`alter table if exists "payin_transaction" add column if not exists "via_pay_again" boolean not null default false;`);
    // the list filtered by bank or method (the insights' links), newest first
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_bank_created_at_id" ON "payin_transaction" ("bank", "created_at", "id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_method_created_at_id" ON "payin_transaction" ("method", "created_at", "id") WHERE deleted_at IS NULL;`);
    this.addSql(`update "payin_transaction" t set "disputed_at" = d.at
      from (select transaction_id, min(created_at) as at from payin_status_change
            where to_status in ('dispute', 'checking', 're_calculation') group by transaction_id) d
      where t.id = d.transaction_id and t.disputed_at is null;`);

    this.addSql(`create table if not exists "payin_rollup_day" (
      "day" date not null, "provider_id" text not null, "currency_code" text not null, "bank" text not null, "method" text not null,
      "created" integer not null default 0, "offered" integer not null default 0, "failed" integer not null default 0,
      "paid" integer not null default 0, "paid_amount" numeric not null default 0, "ended_unpaid" integer not null default 0,
      "open" integer not null default 0, "disputed" integer not null default 0,
      "underpaid" integer not null default 0, "underpaid_amount" numeric not null default 0,
      "overpaid" integer not null default 0, "overpaid_amount" numeric not null default 0,
      "stray" integer not null default 0, "stray_amount" numeric not null default 0,
      "pay_again_started" integer not null default 0, "pay_again_created" integer not null default 0, "pay_again_paid" integer not null default 0,
      "received" integer not null default 0, "received_amount" numeric not null default 0,
      constraint "payin_rollup_day_pkey" primary key ("day", "provider_id", "currency_code", "bank", "method"));`);
    this.addSql(`create table if not exists "payin_rollup_pay_time" (
      "day" date not null, "provider_id" text not null, "currency_code" text not null, "bank" text not null, "method" text not null,
      "bucket_start" integer not null, "bucket_end" integer not null, "count" integer not null default 0,
      constraint "payin_rollup_pay_time_pkey" primary key ("day", "provider_id", "currency_code", "bank", "method", "bucket_start"));`);
    this.addSql(`create table if not exists "payin_rollup_rebuild" (
      "id" integer not null default 1 check ("id" = 1), "after_id" text not null default '', "done" bigint not null default 0,
      "started_at" timestamptz not null default now(), "finished_at" timestamptz null,
      constraint "payin_rollup_rebuild_pkey" primary key ("id"));`);

    this.addSql(`create or replace function payin_rollup_num(value text) returns numeric language sql immutable as $$
      select case when value ~ '^-?[0-9]+(\\.[0-9]+)?$' then value::numeric else 0 end $$;`);
    this.addSql(`create or replace function payin_rollup_apply(r payin_transaction, s integer) returns void language plpgsql as $$
      declare
        b text := coalesce(r.bank, '');
        m text := coalesce(r.method, '');
        d date := (r.created_at at time zone 'UTC')::date;
        paid boolean := r.paid_at is not null;
        received numeric := case when r.paid_at is not null then payin_rollup_num(r.fiat_amount) else 0 end;
        f jsonb := coalesce(r.flags, '{}'::jsonb);
        stray boolean := f ? 'stray_payment' or f ? 'late_payment';
        secs integer;
        lo integer;
        hi integer;
      begin
        if r.deleted_at is not null then return; end if;
        insert into payin_rollup_day as t (day, provider_id, currency_code, bank, method, created, offered, failed, paid, paid_amount,
            ended_unpaid, open, disputed, underpaid, underpaid_amount, overpaid, overpaid_amount, stray, stray_amount,
            pay_again_started, pay_again_created, pay_again_paid)
          values (d, r.provider_id, r.currency_code, b, m, s, s * (r.service_id is not null)::int, s * (r.status = 'failed')::int,
            s * paid::int, s * received, s * (not paid and r.status = 'canceled')::int,
            s * (not paid and r.status in ('creating', 'active'))::int, s * (r.disputed_at is not null)::int,
            s * (f ? 'underpayment')::int, s * payin_rollup_num(f -> 'underpayment' ->> 'missing_amount'),
            s * (f ? 'overpayment')::int, s * payin_rollup_num(f -> 'overpayment' ->> 'excess_amount'),
            s * stray::int, s * (case when stray then received else 0 end),
            s * r.pay_again_started::int, s * r.via_pay_again::int, s * (r.via_pay_again and paid)::int)
          on conflict (day, provider_id, currency_code, bank, method) do update set
            created = t.created + excluded.created, offered = t.offered + excluded.offered, failed = t.failed + excluded.failed,
            paid = t.paid + excluded.paid, paid_amount = t.paid_amount + excluded.paid_amount,
            ended_unpaid = t.ended_unpaid + excluded.ended_unpaid, open = t.open + excluded.open, disputed = t.disputed + excluded.disputed,
            underpaid = t.underpaid + excluded.underpaid, underpaid_amount = t.underpaid_amount + excluded.underpaid_amount,
            overpaid = t.overpaid + excluded.overpaid, overpaid_amount = t.overpaid_amount + excluded.overpaid_amount,
            stray = t.stray + excluded.stray, stray_amount = t.stray_amount + excluded.stray_amount,
            pay_again_started = t.pay_again_started + excluded.pay_again_started,
            pay_again_created = t.pay_again_created + excluded.pay_again_created, pay_again_paid = t.pay_again_paid + excluded.pay_again_paid;
        if not paid then return; end if;
        insert into payin_rollup_day as t (day, provider_id, currency_code, bank, method, received, received_amount)
          values ((r.paid_at at time zone 'UTC')::date, r.provider_id, r.currency_code, b, m, s, s * received)
          on conflict (day, provider_id, currency_code, bank, method) do update set
            received = t.received + excluded.received, received_amount = t.received_amount + excluded.received_amount;
        secs := greatest(0, floor(extract(epoch from (r.paid_at - r.created_at))))::integer;
        if secs < 600 then lo := secs / 15 * 15; hi := lo + 15;
        elsif secs < 3600 then lo := secs / 60 * 60; hi := lo + 60;
        elsif secs < 86400 then lo := secs / 600 * 600; hi := lo + 600;
        else lo := least(secs / 3600 * 3600, 30 * 86400); hi := case when lo = 30 * 86400 then 2147483647 else lo + 3600 end;
        end if;
        insert into payin_rollup_pay_time as t (day, provider_id, currency_code, bank, method, bucket_start, bucket_end, count)
          values (d, r.provider_id, r.currency_code, b, m, lo, hi, s)
          on conflict (day, provider_id, currency_code, bank, method, bucket_start) do update set count = t.count + excluded.count;
      end $$;`);
    this.addSql(`create or replace function payin_rollup_apply_after(after_id text, lim integer) returns table (n integer, last_id text)
      language plpgsql as $$
      declare
        r payin_transaction;
        c integer := 0;
        l text := null;
      begin
        for r in select * from payin_transaction t where t.id > after_id order by t.id limit lim loop
          perform payin_rollup_apply(r, 1);
          c := c + 1;
          l := r.id;
        end loop;
        return query select c, l;
      end $$;`);
    this.addSql(`create or replace function payin_rollup_trigger() returns trigger language plpgsql as $$
      declare
        after_id text;
      begin
        select r.after_id into after_id from payin_rollup_rebuild r where r.finished_at is null;
        if tg_op in ('UPDATE', 'DELETE') and (after_id is null or old.id <= after_id) then
          perform payin_rollup_apply(old, -1);
        end if;
        if tg_op in ('INSERT', 'UPDATE') and (after_id is null or new.id <= after_id) then
          perform payin_rollup_apply(new, 1);
        end if;
        return null;
      end $$;`);
    this.addSql(`drop trigger if exists "payin_rollup" on "payin_transaction";`);
    this.addSql(`drop trigger if exists "payin_rollup_insert_delete" on "payin_transaction";`);
    this.addSql(`create trigger "payin_rollup_insert_delete" after insert or delete on "payin_transaction"
      for each row execute function payin_rollup_trigger();`);
    this.addSql(`create trigger "payin_rollup" after update on "payin_transaction" for each row
      when ((old.status, old.paid_at, old.service_id, old.bank, old.method, old.currency_code, old.provider_id, old.created_at,
             old.deleted_at, old.fiat_amount, old.flag_kinds, old.disputed_at, old.pay_again_started, old.via_pay_again)
        is distinct from (new.status, new.paid_at, new.service_id, new.bank, new.method, new.currency_code, new.provider_id, new.created_at,
             new.deleted_at, new.fiat_amount, new.flag_kinds, new.disputed_at, new.pay_again_started, new.via_pay_again))
      execute function payin_rollup_trigger();`);
    // The ledger as it is: rolled up here when it is small (up to 50,000 pay-ins, seconds); a larger
    // one is left to the rebuild command (README "Insights"), and rolled up as the rows get there.
    this.addSql(`do $$ begin
      if exists (select 1 from payin_rollup_rebuild) then return; end if;
      if (select count(*) from (select 1 from payin_transaction limit 50001) x) <= 50000 then
        perform payin_rollup_apply_after('', 2147483647);
        insert into payin_rollup_rebuild (id, after_id, done, finished_at)
          values (1, '', (select count(*) from payin_transaction), now());
      else
        insert into payin_rollup_rebuild (id, after_id, done) values (1, '', 0);
      end if;
    end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "payin_rollup" on "payin_transaction";`);
    this.addSql(`drop trigger if exists "payin_rollup_insert_delete" on "payin_transaction";`);
    this.addSql(`drop function if exists payin_rollup_trigger();`);
    this.addSql(`drop function if exists payin_rollup_apply_after(text, integer);`);
    this.addSql(`drop function if exists payin_rollup_apply(payin_transaction, integer);`);
    this.addSql(`drop function if exists payin_rollup_num(text);`);
    this.addSql(`drop table if exists "payin_rollup_rebuild";`);
    this.addSql(`drop table if exists "payin_rollup_pay_time";`);
    this.addSql(`drop table if exists "payin_rollup_day";`);
    this.addSql(`drop index if exists "IDX_payin_transaction_bank_created_at_id";`);
    this.addSql(`drop index if exists "IDX_payin_transaction_method_created_at_id";`);
    this.addSql(`alter table if exists "payin_transaction" drop column if exists "via_pay_again";`);
    this.addSql(`alter table if exists "payin_transaction" drop column if exists "pay_again_started";`);
    this.addSql(`alter table if exists "payin_transaction" drop column if exists "disputed_at";`);
  }

}
