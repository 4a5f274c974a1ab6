// Fills the webhook inbox (payin_webhook_event) and the status history (payin_status_change) BY
// SQL, for the retention spec and the ledger-scale benchmark (issue 15).
//
// fillInbox: `count` entries of one provider instance, row i (1-based) created at `newest` minus
// (count - i) × spacingSeconds, in `state` (applied ones applied a second after arrival); every
// tenth has one duplicate delivery. The raw body is a service Transaction as the service sends it
// (the same fields as the ledger fill's service_data, about 1 KB), so sizes are realistic.
//
// fillHistory: for each of the first `payins` pay-ins of an instance (oldest first), the three
// status changes a paid pay-in has (created active, checking, closed), each with what the plugin
// keeps of the service's answer (the first amount; what arrived when it was not what was asked),
// at its creation time plus 0 / 10 / 20 minutes.
import { fillInChunks } from "./ledger-fill"

type Knex = { raw(sql: string, bindings?: unknown): Promise<{ rows: any[] }> }

export type InboxFill = {
  count: number
  /** a few characters making this fill's ids unique */
  tag: string
  providerId?: string
  newest?: Date
  spacingSeconds?: number
  state?: "received" | "applied" | "failed" | "rejected"
  chunk?: number
}

export async function fillInbox(knex: Knex, fill: InboxFill, progress?: (done: number) => void): Promise<void> {
  const values = {
    provider: fill.providerId ?? "pp_payin_default",
    newest: (fill.newest ?? new Date()).toISOString(),
    spacing: fill.spacingSeconds ?? 10,
    state: fill.state ?? "applied",
  }
  await fillInChunks(knex, INBOX_SQL, { ...fill, chunk: fill.chunk ?? 50_000 }, values, progress)
}

const INBOX_SQL = `
with g as (
  select i, :newest::timestamptz - ((:count::int - i) * :spacing::int) * interval '1 second' as created,
    md5('service' || :tag::text || i) as h
  from generate_series(:from::bigint, :to::bigint) as i
), v as (
  select g.*,
    substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-a' || substr(h, 18, 3) || '-' || substr(h, 21, 12) as service_id,
    (array['active', 'checking', 'closed'])[1 + i % 3] as status,
    round((500 + (i * 7919) % 99500)::numeric, 2) as amount
  from g
)
insert into payin_webhook_event (id, provider_id, service_id, status, payload_hash, raw_body, state, attempts,
  duplicates, last_error, next_attempt_at, applied_at, result, created_at, updated_at)
select
  'payinwh_01' || upper(:tag::text) || upper(substr(md5('payinwh' || :tag::text || i), 1, 24 - length(:tag::text))),
  :provider::text, service_id, status, md5('hash' || :tag::text || i), jsonb_build_object(
    'id', service_id, 'fiatAmount', amount::text, 'cryptoAmount', round(amount / 92.5371, 6)::text,
    'merchantFee', round(amount * 0.025, 2)::text, 'currencyRate', '92.5371', 'type', 'payin', 'status', status,
    'bank', 'Sberbank', 'fiatCurrency', 'RUB', 'cryptoCurrency', 'USDT', 'cryptoNetwork', 'TRC20',
    'payoutInvoicesUrl', '[]'::jsonb, 'disputeMerchantCheckUrl', null, 'disputeTraderCheckUrl', null,
    'disputeMerchantFiatAmount', '0', 'disputeTraderFiatAmount', '0',
    'requisite', jsonb_build_object('id', 'req-' || (i % 997), 'bank', 'Sberbank', 'ownerName', 'Ivan Petrov',
      'requisites', '2200' || lpad((i % 1000000000000)::text, 12, '0'), 'fiatCurrency', 'RUB'),
    'extra', jsonb_build_object('externalTransactionId', 'payses_01' || upper(substr(h, 1, 24))),
    'createdAt', created, 'externalPaymentPageUrl', 'https://pay.example.test/p/' || service_id)::text,
  :state::text, case when :state::text = 'received' then 0 else 1 end,
  case when i % 10 = 0 then 1 else 0 end,
  case when :state::text in ('failed', 'rejected') then 'fill: ' || :state::text end,
  case when :state::text = 'failed' then created + interval '1 hour' end,
  case when :state::text = 'applied' then created + interval '1 second' end,
  case when :state::text = 'applied' then jsonb_build_object('status', status, 'changed', true, 'effects', '[]'::jsonb) end,
  created, created + interval '1 second'
from v`

export async function fillHistory(knex: Knex, providerId: string, payins: number): Promise<void> {
  await knex.raw(
    `with t as (
       select id, created_at, assigned_amount, fiat_amount from payin_transaction where provider_id = :provider
       order by created_at, id limit :payins
     )
     insert into payin_status_change (transaction_id, from_status, to_status, source, service_data, created_at, updated_at)
     select t.id, s.from_status, s.to_status, s.source,
       -- what the plugin keeps (rows.ts changeDetails): the first amount, and what arrived when it was not what was asked
       case when s.n = 0 then jsonb_build_object('fiatAmount', t.assigned_amount)
         when s.n = 2 and t.fiat_amount <> t.assigned_amount then jsonb_build_object('fiatAmount', t.fiat_amount) end,
       t.created_at + s.n * interval '10 minutes', t.created_at + s.n * interval '10 minutes'
     from t cross join (values (0, null, 'active', 'create'), (1, 'active', 'checking', 'webhook'),
       (2, 'checking', 'closed', 'webhook')) as s(n, from_status, to_status, source)`,
    { provider: providerId, payins }
  )
}
