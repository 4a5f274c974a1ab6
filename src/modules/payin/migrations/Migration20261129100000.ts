import { Migration } from "@medusajs/framework/mikro-orm/migrations";
import { Migration20261128100000 } from "./Migration20261128100000";

// Insights: money counted in the currency it arrived in (issue 39).
//
// - What arrived (`paid_amount`, `stray_amount`, `received_amount`) goes to the rollup row of the
//   money's currency, `fiat_currency` (the pay-in's own when the service named none); the pay-in's
//   counters and what was missing or extra (`underpaid_amount`, `overpaid_amount`) stay on the row
//   of the currency asked, `currency_code` (src/status.ts INSIGHT_AMOUNT_CURRENCY;
//   insights/__tests__/rollup-sql.unit.spec.ts compares the branches below with it). Before, a RUB
//   pay-in paid in USD added its dollars to the roubles. Currencies are keyed in lower case.
// - The rule is otherwise Migration20261128100000's, one text for the triggers, the rebuild batches
//   and the check; `fiat_currency` joins the columns whose change recounts a pay-in.
// - The rollups recomputed with the new rule: at once up to 50,000 pay-ins, else the rebuild is
//   pending (README "Insights"), as Migration20261128100000 did.

/** Every column the rule reads: an update that changes none of them changes no rollup. */
const READS = [
  "status", "paid_at", "captured_at", "service_id", "provider_id", "currency_code", "fiat_currency", "bank", "method", "created_at",
  "deleted_at", "fiat_amount", "flags", "disputed_at", "pay_again_started", "pay_again_until", "via_pay_again",
];

const rows = (source: string) => `x as (${source}),
  v as (
    select x.s, x.provider_id, lower(x.currency_code) as currency_code, lower(coalesce(x.fiat_currency, x.currency_code)) as arrived_currency,
      coalesce(x.bank, '') as bank, coalesce(x.method, '') as method,
      (x.created_at at time zone 'UTC')::date as day, x.created_at, x.paid_at, x.service_id, x.disputed_at, x.captured_at,
      x.pay_again_until, x.pay_again_started, x.via_pay_again, coalesce(x.flags, '{}'::jsonb) as f,
      payin_rollup_part(x.status, x.paid_at is not null) as part,
      case when x.paid_at is not null then payin_rollup_num(x.fiat_amount) else 0 end as received
    from x where x.deleted_at is null)`;

/**
 * payin_rollup_day's value columns (in the table's order), what one pay-in of sign `s` adds to its
 * cohort's row, and the currency of that row: `asked` (the pay-in's) or `arrived` (the money's).
 */
const COHORT: [string, string, "asked" | "arrived"][] = [
  ["created", "s", "asked"],
  ["offered", "s * (service_id is not null)::int", "asked"],
  ["failed", "s * (part = 'failed')::int", "asked"],
  ["paid", "s * (part = 'paid')::int", "asked"],
  ["paid_amount", "s * received", "arrived"],
  ["ended_unpaid", "s * (part = 'ended_unpaid')::int", "asked"],
  ["open", "s * (part = 'open')::int", "asked"],
  ["disputed", "s * (disputed_at is not null)::int", "asked"],
  ["underpaid", "s * (f ?| array['underpayment'])::int", "asked"],
  ["underpaid_amount", "s * payin_rollup_num(f -> 'underpayment' ->> 'missing_amount')", "asked"],
  ["overpaid", "s * (f ?| array['overpayment'])::int", "asked"],
  ["overpaid_amount", "s * payin_rollup_num(f -> 'overpayment' ->> 'excess_amount')", "asked"],
  ["stray", "s * (f ?| array['stray_payment', 'late_payment'])::int", "asked"],
  ["stray_amount", "s * case when f ?| array['stray_payment', 'late_payment'] then received else 0 end", "arrived"],
  ["pay_again_started", "s * pay_again_started::int", "asked"],
  ["pay_again_created", "s * via_pay_again::int", "asked"],
  ["pay_again_paid", "s * (captured_at is not null and (pay_again_until is not null or via_pay_again))::int", "asked"],
  ["received", "0", "asked"],
  ["received_amount", "0", "asked"],
  ["disputed_unpaid", "s * (part = 'disputed_unpaid')::int", "asked"],
];
/** What a paid pay-in adds to the row of the day its money arrived, in the money's currency. */
const ARRIVED: Record<string, string> = { received: "s", received_amount: "s * received" };
const KEY = ["day", "provider_id", "currency_code", "bank", "method"];
const COUNTS = new Set(["created", "offered", "failed", "paid", "ended_unpaid", "open", "disputed", "underpaid", "overpaid",
  "stray", "pay_again_started", "pay_again_created", "pay_again_paid", "received", "disputed_unpaid"]);
const inAsked = (e: string, currency: string) => (currency === "arrived" ? `case when arrived_currency = currency_code then ${e} else 0 end` : e);

// three branches: the pay-in's cohort row in the currency asked; what arrived in another currency,
// on the cohort's day in its own (only when something did: no row of zeros); the money on its day
const dayRows = `select ${KEY.join(", ")}, ${COHORT.map(([c]) => `sum(${c})${COUNTS.has(c) ? "::integer" : ""} as ${c}`).join(", ")}
  from (
    select day, provider_id, currency_code, bank, method, ${COHORT.map(([c, e, currency]) => `${inAsked(e, currency)} as ${c}`).join(", ")}
    from v
    union all
    select day, provider_id, arrived_currency, bank, method, ${COHORT.map(([c, e, currency]) => `${currency === "arrived" ? e : "0"} as ${c}`).join(", ")}
    from v where arrived_currency <> currency_code and received <> 0
    union all
    select (paid_at at time zone 'UTC')::date, provider_id, arrived_currency, bank, method, ${COHORT.map(([c]) => `${ARRIVED[c] ?? "0"} as ${c}`).join(", ")}
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

export class Migration20261129100000 extends Migration {

  override async up(): Promise<void> {
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
    this.addSql(RECOMPUTE);
  }

  override async down(): Promise<void> {
    // Migration20261128100000's functions as it wrote them (its triggers call them by name)
    const previous = new Migration20261128100000(this.driver, this.config);
    await previous.up();
    for (const sql of previous.getQueries()) {
      if (typeof sql === "string" && /^create or replace function payin_rollup_(apply_after|day_of_ledger|pay_time_of_ledger|statement)\(/.test(sql.trim())) {
        this.addSql(sql);
      }
    }
    this.addSql(RECOMPUTE);
  }

}
