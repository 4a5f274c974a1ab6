import { Migration } from "@medusajs/framework/mikro-orm/migrations";
import { Migration20261127100000 } from "./Migration20261127100000";

// Insights: a funnel that adds up, and rollups kept per statement.
//
// - payin_rollup_part(status, paid): the funnel part of a pay-in as src/status.ts has it
//   (funnelPartOf; insights/__tests__/rollup-sql.unit.spec.ts compares these literals with it): every
//   pay-in is in exactly one of paid, ended_unpaid, open, disputed_unpaid, failed. The rollups gain
//   `disputed_unpaid`; `disputed` stays "ever in a dispute".
// - pay_again_paid: the pay-in whose money was booked for its order (captured_at) among those of an
//   order whose grace period began (pay_again_until on the row, or made by pay again).
// - Statement-level triggers with transition tables: one upsert per rollup key and statement (a
//   bulk insert of one day, bank and method updated one rollup row once per pay-in before, each
//   time further down its chain of row versions). An update counts the rows whose read columns
//   changed, minus their old version. The rule below is one text, used by the triggers, the rebuild
//   batches and the check (payin_rollup_*_of_ledger), so they cannot disagree.
// - The rollups recomputed with the new rule: at once up to 50,000 pay-ins, else the rebuild is
//   pending (README "Insights"), as Migration20261127100000 did.

/** Every column the rule reads: an update that changes none of them changes no rollup. */
const READS = [
  "status", "paid_at", "captured_at", "service_id", "provider_id", "currency_code", "bank", "method", "created_at",
  "deleted_at", "fiat_amount", "flags", "disputed_at", "pay_again_started", "pay_again_until", "via_pay_again",
];

const rows = (source: string) => `x as (${source}),
  v as (
    select x.s, x.provider_id, x.currency_code, coalesce(x.bank, '') as bank, coalesce(x.method, '') as method,
      (x.created_at at time zone 'UTC')::date as day, x.created_at, x.paid_at, x.service_id, x.disputed_at, x.captured_at,
      x.pay_again_until, x.pay_again_started, x.via_pay_again, coalesce(x.flags, '{}'::jsonb) as f,
      payin_rollup_part(x.status, x.paid_at is not null) as part,
      case when x.paid_at is not null then payin_rollup_num(x.fiat_amount) else 0 end as received
    from x where x.deleted_at is null)`;

/** payin_rollup_day's value columns (in the table's order) and what one pay-in of sign `s` adds to its cohort's row. */
const COHORT: [string, string][] = [
  ["created", "s"],
  ["offered", "s * (service_id is not null)::int"],
  ["failed", "s * (part = 'failed')::int"],
  ["paid", "s * (part = 'paid')::int"],
  ["paid_amount", "s * received"],
  ["ended_unpaid", "s * (part = 'ended_unpaid')::int"],
  ["open", "s * (part = 'open')::int"],
  ["disputed", "s * (disputed_at is not null)::int"],
  ["underpaid", "s * (f ?| array['underpayment'])::int"],
  ["underpaid_amount", "s * payin_rollup_num(f -> 'underpayment' ->> 'missing_amount')"],
  ["overpaid", "s * (f ?| array['overpayment'])::int"],
  ["overpaid_amount", "s * payin_rollup_num(f -> 'overpayment' ->> 'excess_amount')"],
  ["stray", "s * (f ?| array['stray_payment', 'late_payment'])::int"],
  ["stray_amount", "s * case when f ?| array['stray_payment', 'late_payment'] then received else 0 end"],
  ["pay_again_started", "s * pay_again_started::int"],
  ["pay_again_created", "s * via_pay_again::int"],
  ["pay_again_paid", "s * (captured_at is not null and (pay_again_until is not null or via_pay_again))::int"],
  ["received", "0"],
  ["received_amount", "0"],
  ["disputed_unpaid", "s * (part = 'disputed_unpaid')::int"],
];
/** What a paid pay-in adds to the row of the day its money arrived. */
const ARRIVED: Record<string, string> = { received: "s", received_amount: "s * received" };
const KEY = ["day", "provider_id", "currency_code", "bank", "method"];
const COUNTS = new Set(["created", "offered", "failed", "paid", "ended_unpaid", "open", "disputed", "underpaid", "overpaid",
  "stray", "pay_again_started", "pay_again_created", "pay_again_paid", "received", "disputed_unpaid"]);

const dayRows = `select ${KEY.join(", ")}, ${COHORT.map(([c]) => `sum(${c})${COUNTS.has(c) ? "::integer" : ""} as ${c}`).join(", ")}
  from (
    select ${KEY.join(", ")}, ${COHORT.map(([c, e]) => `${e} as ${c}`).join(", ")} from v
    union all
    select (paid_at at time zone 'UTC')::date, provider_id, currency_code, bank, method, ${COHORT.map(([c]) => ARRIVED[c] ?? "0").join(", ")}
    from v where paid_at is not null
  ) d group by ${KEY.join(", ")}`;

// time to pay: 15 s buckets up to 10 min, 1 min up to an hour, 10 min up to a day, then hours up to 30 days
const timeRows = `select ${KEY.join(", ")}, lo as bucket_start, hi as bucket_end, sum(s)::integer as count
  from (
    select v.*, k.lo, case when b.secs < 600 then k.lo + 15 when b.secs < 3600 then k.lo + 60 when b.secs < 86400 then k.lo + 600
        when k.lo = 2592000 then 2147483647 else k.lo + 3600 end as hi
    from v cross join lateral (select greatest(0, floor(extract(epoch from v.paid_at - v.created_at)))::bigint as secs) b
      cross join lateral (select (case when b.secs < 600 then b.secs / 15 * 15 when b.secs < 3600 then b.secs / 60 * 60
        when b.secs < 86400 then b.secs / 600 * 600 else least(b.secs / 3600 * 3600, 2592000) end)::integer as lo) k
    where v.paid_at is not null
  ) p group by ${KEY.join(", ")}, lo, hi having sum(s) <> 0`;

/** Adds what the rows of `source` (payin_transaction's columns and a sign `s`) count for to the rollups: one statement. */
const addTo = (source: string) => `with ${rows(source)},
  times as (
    insert into payin_rollup_pay_time as t (${KEY.join(", ")}, bucket_start, bucket_end, count) ${timeRows}
    on conflict (${KEY.join(", ")}, bucket_start) do update set count = t.count + excluded.count)
  insert into payin_rollup_day as t (${KEY.join(", ")}, ${COHORT.map(([c]) => c).join(", ")}) ${dayRows}
  on conflict (${KEY.join(", ")}) do update set ${COHORT.map(([c]) => `${c} = t.${c} + excluded.${c}`).join(", ")}`;

const same = (a: string, b: string) => `(${READS.map((c) => `${a}.${c}`).join(", ")}) is not distinct from (${READS.map((c) => `${b}.${c}`).join(", ")})`;
/** While a rebuild runs, the pay-ins past its position are left to it. */
const upTo = (alias: string) => `(upto is null or ${alias}.id <= upto)`;
// no plpgsql variable in the triggers' statements: a statement without parameters is planned once per session
const beforeRebuild = (alias: string) =>
  `${alias}.id <= coalesce((select r.after_id from payin_rollup_rebuild r where r.finished_at is null), ${alias}.id)`;

const RECOMPUTE = `do $$ begin
  delete from payin_rollup_day;
  delete from payin_rollup_pay_time;
  if (select count(*) from (select 1 from payin_transaction limit 50001) x) <= 50000 then
    perform payin_rollup_apply_after('', 2147483647);
    insert into payin_rollup_rebuild (id, after_id, done, started_at, finished_at) values (1, '', (select count(*) from payin_transaction), now(), now())
      on conflict (id) do update set after_id = '', done = excluded.done, started_at = now(), finished_at = now();
  else
    insert into payin_rollup_rebuild (id, after_id, done, started_at, finished_at) values (1, '', 0, now(), null)
      on conflict (id) do update set after_id = '', done = 0, started_at = now(), finished_at = null;
  end if;
end $$;`;

export class Migration20261128100000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_rollup_day" add column if not exists "disputed_unpaid" integer not null default 0;`);
    this.addSql(`drop trigger if exists "payin_rollup" on "payin_transaction";`);
    this.addSql(`drop trigger if exists "payin_rollup_insert_delete" on "payin_transaction";`);
    this.addSql(`drop function if exists payin_rollup_trigger();`);
    this.addSql(`drop function if exists payin_rollup_apply(payin_transaction, integer);`);

    this.addSql(`create or replace function payin_rollup_part(status text, paid boolean) returns text language sql immutable as $$
      select case when paid then 'paid'
        when status in ('closed') then 'paid'
        when status in ('creating', 'active') then 'open'
        when status in ('dispute', 'checking', 're_calculation') then 'disputed_unpaid'
        when status in ('canceled') then 'ended_unpaid'
        when status in ('failed') then 'failed' end $$;`);
    this.addSql(`create or replace function payin_rollup_apply_after(after_id text, lim integer) returns table (n integer, last_id text)
      language plpgsql as $$
      declare
        c integer;
        l text;
      begin
        select count(*)::integer, max(b.id) into c, l
          from (select t.id from payin_transaction t where t.id > after_id order by t.id limit lim) b;
        ${addTo(`select t.*, 1 as s from payin_transaction t where t.id > after_id and t.id <= l`)};
        return query select c, l;
      end $$;`);
    this.addSql(`create or replace function payin_rollup_day_of_ledger(upto text) returns setof payin_rollup_day language sql stable as $$
      with ${rows(`select t.*, 1 as s from payin_transaction t where ${upTo("t")}`)} ${dayRows} $$;`);
    this.addSql(`create or replace function payin_rollup_pay_time_of_ledger(upto text) returns setof payin_rollup_pay_time language sql stable as $$
      with ${rows(`select t.*, 1 as s from payin_transaction t where ${upTo("t")}`)} ${timeRows} $$;`);
    this.addSql(`create or replace function payin_rollup_statement() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          ${addTo(`select n.*, 1 as s from payin_rollup_new n where ${beforeRebuild("n")}`)};
        elsif tg_op = 'DELETE' then
          ${addTo(`select o.*, -1 as s from payin_rollup_old o where ${beforeRebuild("o")}`)};
        else
          -- most updates (effects, links, the fence) change nothing the rule reads: answered by one cheap query
          if not exists (select from payin_rollup_old o
              where not exists (select from payin_rollup_new n where n.id = o.id and ${same("n", "o")})) then
            return null;
          end if;
          ${addTo(`select o.*, -1 as s from payin_rollup_old o
              where ${beforeRebuild("o")} and not exists (select from payin_rollup_new n where n.id = o.id and ${same("n", "o")})
            union all
            select n.*, 1 as s from payin_rollup_new n
              where ${beforeRebuild("n")} and not exists (select from payin_rollup_old o where o.id = n.id and ${same("n", "o")})`)};
        end if;
        return null;
      end $$;`);
    // PostgreSQL allows transition tables only on a trigger of one event
    this.addSql(`create trigger "payin_rollup_insert" after insert on "payin_transaction"
      referencing new table as payin_rollup_new for each statement execute function payin_rollup_statement();`);
    this.addSql(`create trigger "payin_rollup_update" after update on "payin_transaction"
      referencing old table as payin_rollup_old new table as payin_rollup_new for each statement execute function payin_rollup_statement();`);
    this.addSql(`create trigger "payin_rollup_delete" after delete on "payin_transaction"
      referencing old table as payin_rollup_old for each statement execute function payin_rollup_statement();`);
    this.addSql(RECOMPUTE);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "payin_rollup_insert" on "payin_transaction";`);
    this.addSql(`drop trigger if exists "payin_rollup_update" on "payin_transaction";`);
    this.addSql(`drop trigger if exists "payin_rollup_delete" on "payin_transaction";`);
    this.addSql(`drop function if exists payin_rollup_statement();`);
    this.addSql(`drop function if exists payin_rollup_day_of_ledger(text);`);
    this.addSql(`drop function if exists payin_rollup_pay_time_of_ledger(text);`);
    this.addSql(`drop function if exists payin_rollup_part(text, boolean);`);
    this.addSql(`alter table if exists "payin_rollup_day" drop column if exists "disputed_unpaid";`);
    // the rule and row-level triggers of Migration20261127100000, as it wrote them
    const previous = new Migration20261127100000(this.driver, this.config);
    await previous.up();
    for (const sql of previous.getQueries()) {
      if (typeof sql === "string" && /^(create or replace function|drop trigger|create trigger)/.test(sql.trim())) this.addSql(sql);
    }
    this.addSql(RECOMPUTE);
  }

}
