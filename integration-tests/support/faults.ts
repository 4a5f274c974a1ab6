// Shared by the fault specs (faults-*.spec.ts): timed webhook deliveries, and what Medusa itself
// recorded for the pay-ins (payments, captures, order payment status), read straight from its
// tables and admin API so that it holds whichever process did the work.
import pg from "pg"
import { request } from "undici"
import { sign } from "../../src/client/signature"

export type WebhookAnswer = { status: number | null; ms: number; retryAfter?: string; error?: string }

/** POSTs a signed callback to /hooks/payin/default of `baseUrl`; an answer slower than `timeoutMs` is an error. */
export async function deliverTimed(baseUrl: string, body: string, key: string, timeoutMs = 60_000): Promise<WebhookAnswer> {
  const started = Date.now()
  try {
    const res = await request(`${baseUrl}/hooks/payin/default`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature": sign(body, key) },
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    })
    await res.body.dump()
    const retryAfter = res.headers["retry-after"]
    return { status: res.statusCode, ms: Date.now() - started, ...(retryAfter ? { retryAfter: String(retryAfter) } : {}) }
  } catch (error) {
    return { status: null, ms: Date.now() - started, error: String(error) }
  }
}

export type SessionPayments = {
  session_id: string
  /** Medusa's payments of the session, each with its captures. */
  payments: { id: string; amount: string; captures: string[] }[]
}

/** Medusa's payments and captures of these payment sessions (deleted rows left out). */
export async function paymentsOfSessions(databaseUrl: string, sessionIds: string[]): Promise<SessionPayments[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query(
      `select s.id as session_id,
         coalesce((select json_agg(json_build_object(
             'id', p.id, 'amount', p.amount::text,
             'captures', coalesce((select json_agg(c.amount::text) from capture c where c.payment_id = p.id and c.deleted_at is null), '[]'::json)))
           from payment p where p.payment_session_id = s.id and p.deleted_at is null), '[]'::json) as payments
       from payment_session s where s.id = any($1)`,
      [sessionIds]
    )
    return rows
  } finally {
    await client.end()
  }
}

/** Every session has exactly one payment, captured once, for the payment's whole amount. */
export function capturedExactlyOnce(sessions: SessionPayments[], sessionIds: string[]): boolean {
  return (
    sessions.length === sessionIds.length &&
    sessions.every(
      (s) => s.payments.length === 1 && s.payments[0].captures.length === 1 && Number(s.payments[0].captures[0]) === Number(s.payments[0].amount)
    )
  )
}

/** A bearer token of an admin user, through the store's own auth route. */
export async function adminToken(baseUrl: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${baseUrl}/auth/user/emailpass`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  })
  const body = (await res.json()) as { token?: string }
  if (!body.token) throw new Error(`admin login failed: ${res.status} ${JSON.stringify(body)}`)
  return body.token
}

/** The payment status Medusa shows for each order (admin API). */
export async function orderPaymentStatuses(baseUrl: string, token: string, orderIds: string[]): Promise<Record<string, string>> {
  const statuses: Record<string, string> = {}
  for (const id of orderIds) {
    const res = await fetch(`${baseUrl}/admin/orders/${id}?fields=id,payment_status`, { headers: { authorization: `Bearer ${token}` } })
    const body = (await res.json()) as { order?: { payment_status: string } }
    if (!body.order) throw new Error(`GET /admin/orders/${id}: ${res.status} ${JSON.stringify(body)}`)
    statuses[id] = body.order.payment_status
  }
  return statuses
}
