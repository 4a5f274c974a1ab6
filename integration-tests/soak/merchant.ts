// Merchants acting during the load, through the admin API like the admin pages, on a seeded
// schedule in a lane of their own: Reconcile now of a pay-in, a capture by hand (Medusa's own
// POST /admin/payments/:id/capture), a setting changed (the payment window shown to shoppers), the
// API key rotated at the service and then in the admin. Each is logged with its time, its target
// and the admin API's answer; the auditor judges the money afterwards as for everything else.
import { randomBytes } from "crypto"
import pg from "pg"
import { request } from "undici"
import { TEST_ADMIN } from "../support/admin"
import { adminToken } from "../support/faults"
import { Prng } from "./prng"
import type { Topology } from "./topology"

export const MERCHANT_ACTIONS = ["reconcile_now", "capture_by_hand", "setting_changed", "key_rotated"] as const
export type MerchantAction = (typeof MERCHANT_ACTIONS)[number]

export type PlannedAction = { kind: MerchantAction; atMs: number }
export type ActionRecord = PlannedAction & {
  startedAt?: number
  endedAt?: number
  /** what it acted on (a pay-in, a payment, a setting) */
  target?: string
  /** the admin API's answer(s), e.g. "200" or "400 payin_capture_exceeds_received" */
  answer?: string
  skipped?: string
  error?: string
}

const WEIGHTS: Record<MerchantAction, number> = { reconcile_now: 3, capture_by_hand: 3, setting_changed: 1.5, key_rotated: 1 }

/**
 * The schedule: a first action 15–35 s in, then one every 15–40 s, none in the last 20 s of the
 * load. The first four are the four kinds in a seeded order (a short run does each once), then by
 * weight. Pure.
 */
export function planMerchant(prng: Prng, durationMs: number): PlannedAction[] {
  const first = [...MERCHANT_ACTIONS]
  for (let i = first.length - 1; i > 0; i--) {
    const j = prng.int(0, i)
    ;[first[i], first[j]] = [first[j], first[i]]
  }
  const plan: PlannedAction[] = []
  for (let at = prng.int(15_000, 35_000), n = 0; at < durationMs - 20_000; n++) {
    plan.push({ kind: first[n] ?? prng.weighted(WEIGHTS), atMs: at })
    at += prng.int(15_000, 40_000)
  }
  return plan
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The admin API through any live server: retried on a network error or a 5xx for up to `budgetMs`, logged in again on a 401. */
export function adminApi(topology: Topology, budgetMs = 60_000) {
  let token: string | null = null
  return async (method: "GET" | "POST", url: string, body?: unknown): Promise<{ status: number; data: any }> => {
    const deadline = Date.now() + budgetMs
    let last = ""
    for (let attempt = 0; ; attempt++) {
      const base = topology.anyServer()
      if (base) {
        try {
          token ??= await adminToken(base, TEST_ADMIN.email, TEST_ADMIN.password)
          const res = await request(`${base}${url}`, {
            method,
            headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
            body: body === undefined ? undefined : JSON.stringify(body),
            headersTimeout: 30_000,
            bodyTimeout: 30_000,
          })
          const text = await res.body.text()
          let data: any = null
          try {
            data = text ? JSON.parse(text) : null
          } catch {
            data = text
          }
          if (res.statusCode === 401) token = null
          if (res.statusCode < 500 && res.statusCode !== 401) return { status: res.statusCode, data }
          last = `${res.statusCode} ${text.slice(0, 200)}`
        } catch (error: any) {
          last = String(error?.message ?? error).slice(0, 200)
        }
      }
      if (Date.now() > deadline) throw new Error(`${method} ${url}: no answer within ${budgetMs} ms (last: ${last})`)
      await sleep(Math.min(4_000, 250 * 2 ** attempt))
    }
  }
}

async function query<T = any>(databaseUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  try {
    return (await db.query(sql, params)).rows
  } finally {
    await db.end()
  }
}

/** "200", or a refusal's status, code or type and the start of its message (no key is ever in one: the plugin's rule). */
const answerOf = (r: { status: number; data: any }) =>
  r.status < 400 ? String(r.status) : `${r.status} ${r.data?.code ?? r.data?.type ?? ""}: ${String(r.data?.message ?? "").slice(0, 160)}`

/** Does one action; fills in its target and answer (or why it was skipped). */
async function act(topology: Topology, prng: Prng, a: ActionRecord, keys: { rotations: number }): Promise<void> {
  const admin = adminApi(topology)
  switch (a.kind) {
    case "reconcile_now": {
      // a pay-in still open if there is one (the button a merchant presses when one looks stuck), else a recent one
      const open = await query(topology.databaseUrl, `select id from payin_transaction where deleted_at is null and status not in ('closed', 'canceled', 'failed') order by created_at desc limit 20`)
      const rows = open.length ? open : await query(topology.databaseUrl, `select id from payin_transaction where deleted_at is null order by created_at desc limit 20`)
      if (!rows.length) return void (a.skipped = "no pay-in yet")
      a.target = prng.pick(rows).id
      a.answer = answerOf(await admin("POST", `/admin/payin/transactions/${a.target}/reconcile`))
      return
    }
    case "capture_by_hand": {
      // a pay-in paid but not yet captured (Medusa's capture races the money path's), else an underpaid
      // one captured for what arrived: capturing its whole payment asks for more than arrived (README:
      // the provider refuses, payin_capture_exceeds_received)
      const pending = await query(
        topology.databaseUrl,
        `select l.id, p.id as payment_id from payin_transaction l
         join payment p on p.payment_session_id = l.session_id and p.deleted_at is null and p.canceled_at is null
         where l.deleted_at is null and l.paid_at is not null and l.captured_at is null and l.order_id is not null
         order by l.created_at desc limit 20`
      )
      const underpaid = pending.length
        ? []
        : await query(
            topology.databaseUrl,
            `select l.id, p.id as payment_id, (p.amount - coalesce((select sum(c.amount) from capture c where c.payment_id = p.id and c.deleted_at is null), 0))::text as rest
             from payin_transaction l
             join payment p on p.payment_session_id = l.session_id and p.deleted_at is null and p.canceled_at is null
             where l.deleted_at is null and 'underpayment' = any(l.flag_kinds) and l.captured_at is not null
               and coalesce((select sum(c.amount) from capture c where c.payment_id = p.id and c.deleted_at is null), 0) < p.amount
             order by l.created_at desc limit 20`
          )
      const rows = pending.length ? pending : underpaid
      if (!rows.length) return void (a.skipped = "no pay-in paid and not captured, none underpaid")
      const row = prng.pick(rows)
      a.target = `${row.id} (payment ${row.payment_id}, ${pending.length ? "paid, not captured" : `underpaid, the rest ${row.rest}`})`
      // the whole payment when nothing is captured; the rest of an underpaid one (with no amount Medusa
      // would ask for the whole payment again and refuse it itself, before the provider is asked)
      a.answer = answerOf(await admin("POST", `/admin/payments/${row.payment_id}/capture`, pending.length ? {} : { amount: Number(row.rest) }))
      return
    }
    case "setting_changed": {
      // the payment window the plugin shows shoppers (harmless to the money: the service keeps its own)
      const seconds = prng.int(10, 30) * 60
      a.target = `paymentWindowSeconds ${seconds}`
      a.answer = answerOf(await admin("POST", `/admin/payin/settings/default`, { paymentWindowSeconds: seconds }))
      return
    }
    case "key_rotated": {
      // at the service first (its merchant panel), then in the admin: in between the store's calls
      // and callbacks use the old key, as in a real rotation; the key itself is never logged
      const next = `soak-rotated-${++keys.rotations}-${randomBytes(12).toString("hex")}`
      const previous = topology.serviceKey
      topology.sandbox.updateMerchant({ apiKey: next })
      topology.serviceKey = next
      a.target = `API key rotation ${keys.rotations}`
      try {
        const saved = await admin("POST", `/admin/payin/settings/default`, { apiKey: next })
        a.answer = answerOf(saved)
        if (saved.status !== 200) throw new Error(`the admin refused the key: ${a.answer}`)
      } catch (error) {
        // the store must not be left on a key the service no longer has
        topology.sandbox.updateMerchant({ apiKey: previous })
        topology.serviceKey = previous
        throw error
      }
      return
    }
  }
}

export type MerchantRun = { records: ActionRecord[]; stop(): Promise<void> }

/** Runs `plan` from `startedAt` on, one action at a time; stop() skips the rest and waits for the one under way. */
export function runMerchant(topology: Topology, plan: PlannedAction[], prng: Prng, startedAt: number, log: (line: string) => void): MerchantRun {
  const records: ActionRecord[] = plan.map((p) => ({ ...p }))
  let stopping = false
  let wake: () => void = () => undefined
  const stopped = new Promise<void>((r) => (wake = r))
  const keys = { rotations: 0 }
  const lane = (async () => {
    for (const a of records) {
      const wait = startedAt + a.atMs - Date.now()
      if (wait > 0) await Promise.race([sleep(wait), stopped])
      if (stopping) {
        a.skipped = "the load had ended"
        continue
      }
      a.startedAt = Date.now()
      try {
        await act(topology, prng, a, keys)
      } catch (error: any) {
        a.error = String(error?.message ?? error).slice(0, 500)
      }
      a.endedAt = Date.now()
      log(`merchant ${a.kind}${a.target ? ` of ${a.target}` : ""}: ${a.skipped ?? a.error ?? a.answer} (${a.endedAt - a.startedAt} ms)`)
    }
  })()
  return {
    records,
    async stop() {
      stopping = true
      wake()
      await lane
    },
  }
}
