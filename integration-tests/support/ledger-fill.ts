// Fills payin_transaction with synthetic pay-ins BY SQL (generate_series), fast, in the mix of
// issue 15: 90% closed, 5% canceled, 3% active, 2% dispute, 1% of all flagged `underpayment`
// (closed ones paid 10.00 less than assigned). Used by the ledger-scale benchmark (1,000,000
// rows) and by the specs that need many rows (EXPLAIN, cursors, count estimates, the export).
//
// Row i (1-based) is deterministic:
//   status        by i % 100: 0–89 closed, 90–94 canceled, 95–97 active, 98–99 dispute
//   flags         i % 100 = 7 → {"underpayment": …}; extra rare flags when `rareFlags` is set:
//                 i % 10000 = 17 → capture_failed (with a given-up pending capture), i % 10000 = 27 → late_payment
//   created_at    `newest` minus (count - i) × `spacingSeconds` (every `sameTimeEvery`-th row shares
//                 its predecessor's time, so keyset pagination must break ties by id)
//   ids           payintx_/payses_/order_/cart_/pay_col_ + 26 characters, service_id a UUID,
//                 all derived from i and `tag` (prefix searches find exactly one row)
//   amounts       numeric with 2 decimals; the service's crypto amount, rate and fee as digit strings
//   requisite     a card number (2200 + 12 pseudo-random digits); every third an SBP phone number
//   bank, method  one of 8 banks by i % 8, one of 4 methods by (i / 7) % 4 (32 pairs, as a store's
//                 insights would have them), or the fill's own `bank` and `method`; disputed_at on the disputed ones
export type LedgerFill = {
  /** rows to add */
  count: number
  /** a few characters making this fill's ids unique (several fills in one database) */
  tag: string
  providerId?: string
  newest?: Date
  spacingSeconds?: number
  sameTimeEvery?: number
  rareFlags?: boolean
  /** one bank and method for every row (with spacingSeconds 0: one rollup key, as a bulk import of one day would be) */
  bank?: string
  method?: string
  /** rows per INSERT statement */
  chunk?: number
  /** a table shaped like payin_transaction to fill instead (e.g. a staging copy) */
  into?: string
}

type Knex = { raw(sql: string, bindings?: any): Promise<{ rows: any[] }> }

/**
 * Runs a generate_series fill statement over rows 1…count in chunks (`from`/`to` bound with the
 * fill's own values), reporting the rows done. The fill's `tag` keeps its ids unique.
 */
export async function fillInChunks(
  knex: Knex,
  sql: string,
  fill: { count: number; tag: string; chunk?: number },
  values: Record<string, unknown>,
  progress?: (done: number) => void
): Promise<void> {
  if (!/^[a-z0-9]{1,8}$/.test(fill.tag)) throw new Error("tag: 1–8 lowercase letters or digits")
  const chunk = fill.chunk ?? 100_000
  for (let from = 1; from <= fill.count; from += chunk) {
    const to = Math.min(fill.count, from + chunk - 1)
    await knex.raw(sql, { from, to, count: fill.count, tag: fill.tag, ...values } as any)
    progress?.(to)
  }
}

export async function fillLedger(knex: Knex, fill: LedgerFill, progress?: (done: number) => void): Promise<void> {
  const values = {
    tagUpper: fill.tag.toUpperCase(),
    idLength: 24 - fill.tag.length,
    provider: fill.providerId ?? "pp_payin_default",
    newest: (fill.newest ?? new Date()).toISOString(),
    spacing: fill.spacingSeconds ?? 31,
    same: fill.sameTimeEvery ?? 0,
    rare: fill.rareFlags ?? false,
    bank: fill.bank ?? null,
    method: fill.method ?? null,
  }
  const into = fill.into ?? "payin_transaction"
  if (!/^[a-z_]{1,63}$/.test(into)) throw new Error("into: a table name")
  await fillInChunks(knex, FILL_SQL.replace("insert into payin_transaction (", `insert into ${into} (`), fill, values, progress)
}

// knex named bindings (:name) keep the statement readable; every value is bound, none interpolated.
const FILL_SQL = `
with g as (
  select i, i % 100 as m,
    case when :same::int > 0 and i % :same::int = 0 then i - 1 else i end as t
  from generate_series(:from::bigint, :to::bigint) as i
), r as (
  select g.*,
    case when m < 90 then 'closed' when m < 95 then 'canceled' when m < 98 then 'active' else 'dispute' end as status,
    round((500 + (i * 7919) % 99500 + (i % 100) / 100.0)::numeric, 2) as amount,
    :newest::timestamptz - ((:count::int - t) * :spacing::int) * interval '1 second' as created,
    md5('service' || :tag::text || i) as h,
    (:rare::boolean and i % 10000 = 17) as capture_failed,
    (:rare::boolean and i % 10000 = 27) as late
  from g
), v as (
  select r.*,
    'payintx_01' || :tagUpper::text || upper(substr(md5('payintx' || :tag::text || i), 1, :idLength::int)) as id,
    'payses_01' || :tagUpper::text || upper(substr(md5('payses' || :tag::text || i), 1, :idLength::int)) as session_id,
    'order_01' || :tagUpper::text || upper(substr(md5('order' || :tag::text || i), 1, :idLength::int)) as order_id,
    'cart_01' || :tagUpper::text || upper(substr(md5('cart' || :tag::text || i), 1, :idLength::int)) as cart_id,
    'pay_col_01' || :tagUpper::text || upper(substr(md5('pay_col' || :tag::text || i), 1, :idLength::int)) as collection_id,
    substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-a' || substr(h, 18, 3) || '-' || substr(h, 21, 12) as service_id,
    case when m = 7 then amount - 10 else amount end as received,
    '2200' || lpad((('x' || substr(md5('requisite' || :tag::text || i), 1, 12))::bit(48)::bigint % 1000000000000)::text, 12, '0') as requisites,
    '+79' || lpad((('x' || substr(md5('sbp' || :tag::text || i), 1, 12))::bit(48)::bigint % 1000000000)::text, 9, '0') as sbp
  from r
), f as (
  select v.*,
    nullif(
      (case when m = 7 then jsonb_build_object('underpayment', jsonb_build_object('at', created + interval '20 minutes', 'assigned', amount::text, 'received', received::text)) else '{}'::jsonb end)
      || (case when capture_failed then jsonb_build_object('capture_failed', jsonb_build_object('at', created + interval '30 minutes', 'attempts', 5)) else '{}'::jsonb end)
      || (case when late then jsonb_build_object('late_payment', jsonb_build_object('at', created + interval '2 hours')) else '{}'::jsonb end),
      '{}'::jsonb) as flags
  from v
)
insert into payin_transaction (
  id, provider_id, session_id, service_id, status, amount, raw_amount, currency_code, fiat_amount, assigned_amount,
  fiat_currency, method, bank, requisite, payment_page_url, payment_collection_id, cart_id, order_id, expires_at,
  captured_at, paid_at, effect_pending, effect_attempts, flags, flag_kinds, service_data, status_changed_at,
  store_canceled_at, created_at, updated_at, disputed_at)
select
  id, :provider::text, session_id, service_id, status, amount,
  jsonb_build_object('value', amount::text, 'precision', 20), 'rub',
  (case when status = 'closed' then received else amount end)::text, amount::text, 'RUB',
  coalesce(:method::text, (array['card', 'phone_number', 'qr', 'account'])[1 + (i / 7) % 4]),
  coalesce(:bank::text, (array['Sberbank', 'Tinkoff', 'VTB', 'Alfa-Bank', 'Raiffeisen', 'Gazprombank', 'Otkritie', 'Sovcombank'])[1 + i % 8]),
  jsonb_build_object('id', 'req-' || (i % 997), 'bank', 'Sberbank', 'ownerName', 'Ivan Petrov', 'requisites', requisites,
    'sbpNumber', case when i % 3 = 0 then sbp end, 'fiatCurrency', 'RUB'),
  'https://pay.example.test/p/' || service_id, collection_id, cart_id,
  case when status in ('closed', 'dispute') or i % 2 = 0 then order_id end,
  created + interval '30 minutes',
  case when status = 'closed' and not capture_failed then created + interval '20 minutes' end,
  case when status = 'closed' then created + interval '20 minutes' end,
  case when capture_failed then 'capture' end, case when capture_failed then 5 else 0 end,
  flags,
  (select array_agg(k order by k) from jsonb_object_keys(flags) as k),
  jsonb_build_object(
    'id', service_id, 'fiatAmount', (case when status = 'closed' then received else amount end)::text,
    'cryptoAmount', round(amount / 92.5371, 6)::text, 'merchantFee', round(amount * 0.025, 2)::text,
    'currencyRate', '92.5371', 'type', 'payin', 'status', status, 'bank', 'Sberbank', 'fiatCurrency', 'RUB',
    'cryptoCurrency', 'USDT', 'cryptoNetwork', 'TRC20', 'payoutInvoicesUrl', '[]'::jsonb,
    'disputeMerchantCheckUrl', null, 'disputeTraderCheckUrl', null,
    'disputeMerchantFiatAmount', '0', 'disputeTraderFiatAmount', '0',
    'requisite', jsonb_build_object('id', 'req-' || (i % 997), 'bank', 'Sberbank', 'ownerName', 'Ivan Petrov',
      'requisites', requisites, 'fiatCurrency', 'RUB'),
    'extra', jsonb_build_object('externalTransactionId', session_id),
    'createdAt', created, 'externalPaymentPageUrl', 'https://pay.example.test/p/' || service_id),
  created + interval '20 minutes',
  case when status = 'canceled' then created + interval '31 minutes' end,
  created, created + interval '20 minutes', case when status = 'dispute' then created + interval '25 minutes' end
from f`
