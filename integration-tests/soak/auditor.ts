// The auditor trusts nothing the plugin says about itself. After the load, it reads three records
// made by three parties, pay-in by pay-in: the service's (the sandbox's transactions through its
// control API, and the moves the shoppers made there with the service's answers), Medusa's
// (payment sessions, payments, captures, the order, its transactions, read from Medusa's tables,
// and the order's payment status from the admin API) and the ledger's (payin_transaction). The
// comparison, `audit`, is a pure function of those records.
import pg from "pg"
import { request } from "undici"
import type { Transaction } from "../../src/client/schemas"
import { TEST_ADMIN } from "../support/admin"
import { adminToken } from "../support/faults"
import type { FaultRecord } from "./faults"
import type { Checkout, ServerError, ServiceMove } from "./shoppers"
import type { Topology } from "./topology"

export const INVARIANTS = {
  captured_equals_arrived: "what Medusa captured for a pay-in = the money that arrived for it, capped at the order total",
  captured_once: "money captured once: one Payment for the session, the order's captures not above its total",
  no_capture_without_money: "nothing captured for a pay-in whose money never arrived",
  no_paid_order_canceled: "no order canceled whose money arrived in time or was captured",
  final_status_matches: "every pay-in's final status on the ledger = the service's",
  order_records_agree: "the order's transactions sum to its captures, and its payment status says what was captured",
  flags_match: "the ledger carries the flags the README names for what the service and Medusa recorded, and no other",
  no_5xx_outside_faults: "no store API answer 5xx but the README's 503s in a fault window (Medusa core's own around a PostgreSQL or Redis restart counted apart)",
} as const
export type Invariant = keyof typeof INVARIANTS

/**
 * One thing the service told the store about a pay-in, measured outside the plugin: a callback the
 * balancer forwarded to a server that answered 2xx, or a lookup the sandbox answered (its lookup log).
 */
export type Told = { at: number; via: "callback" | "lookup"; status: string; fiatAmount: string | null; fiatCurrency: string | null }

/** Amounts in cents (the demo store sells in RUB, two decimals). */
export type PayinRecords = {
  payinId: string
  sessionId: string
  service: { status: string; fiatAmount: string; fiatCurrency: string }
  /** The control API's answers to the shoppers' moves, in order (none for a pay-in nobody moved). */
  moves: ServiceMove[]
  /** What the store was told, in time order; absent: every move (the unit tables' default). */
  told?: Told[]
  /** When the checkout began and ended (the harness's clock), for the faults around it. */
  window: { from: number; to: number } | null
  medusa: {
    session: { amount: number; currency: string; collectionId: string; deleted: boolean } | null
    /** The session's payments (not deleted), each with its captures. */
    payments: { id: string; amount: number; canceled: boolean; captures: number[] }[]
    order: { id: string; status: string; total: number; paymentStatus: string; captured: number; transactions: number } | null
  }
  ledger: {
    id: string
    status: string
    flagKinds: string[]
    effectPending: string | null
    orderId: string | null
    /** Its status history ("time from→to (source) note"), for the report only: the audit does not rely on it. */
    history: string[]
  } | null
}

export type Violation = { invariant: Invariant; payinId: string; orderId: string | null; detail: string; faults?: string[] }
export type AuditResult = {
  invariants: Record<Invariant, { checks: number; violations: number }>
  violations: Violation[]
  /** Flags the README's rules call for that the ledger lacks, and flags it carries that no rule explains, by flag. */
  flags: { missing: Record<string, number>; unexpected: Record<string, number> }
  /** The store API's 5xx: allowed (a README 503 in a service fault), Medusa core's own in a PostgreSQL/Redis window (by fault), the rest are violations. */
  serverErrors: { allowed: number; known: Record<string, number>; violations: number }
  /** Money arrived at the service, pay-ins with money, of them after their window ended. */
  money: { payinsPaid: number; late: number; lateCaptured: number; arrived: number; captured: number }
}

const cents = (v: unknown) => Math.round(Number(v) * 100)
const money = (c: number) => (c / 100).toFixed(2)

/**
 * What arrived, by the service's answers to the moves: the amount at each move into `closed`, the
 * first one first (after a payment, a dispute may recalculate the amount and close it again), and
 * whether the pay-in had been canceled (its window ended) before the first: a late payment.
 */
export function arrivedOf(moves: readonly ServiceMove[]): { cents: number; closings: number[]; currency: string; late: boolean } | null {
  let canceledBefore = false
  let arrived: { cents: number; closings: number[]; currency: string; late: boolean } | null = null
  for (const m of moves) {
    if (m.http !== 200) continue
    if (m.status === "canceled" && !arrived) canceledBefore = true
    if (m.status === "closed" && m.fiatAmount) {
      arrived ??= { cents: cents(m.fiatAmount), closings: [], currency: m.fiatCurrency ?? "", late: canceledBefore }
      arrived.closings.push(cents(m.fiatAmount))
    }
  }
  return arrived
}

export type StoreKnew = {
  /** The moves the store was told of (indices into `moves`). */
  moves: Set<number>
  /** When the store was first told of each of them (the unit tables' default: in the order of the moves). */
  firstAt: Map<number, number>
  /** The store was told the pay-in `closed` at some point, or it ends `closed` (the drain's Reconcile now looks it up). */
  paid: boolean
  /** The `closed` states it was told (the final one when it was told none): the amounts the store may book. */
  closings: { cents: number; currency: string }[]
}

const sameState = (m: ServiceMove, t: Told) =>
  m.status === t.status && m.fiatAmount === t.fiatAmount && (m.fiatCurrency ?? "").toLowerCase() === (t.fiatCurrency ?? "").toLowerCase()

/**
 * Which of the service's moves the store was told of. A callback or a lookup answer carries a
 * state, not a move: it is matched to the latest move into that state sent before it arrived (a
 * retried callback of a first `closed` arriving after a second `closed` of the same amount counts
 * as the second: the store cannot tell them apart, and so nothing is required of it for the first).
 */
export function storeKnew(r: PayinRecords): StoreKnew {
  const done = r.moves.map((m, i) => [m, i] as const).filter(([m]) => m.http === 200 && m.status)
  const finalClosed = r.service.status === "closed"
  const finalClosing = { cents: cents(r.service.fiatAmount), currency: r.service.fiatCurrency }
  if (!r.told) {
    const closings = done.filter(([m]) => m.status === "closed" && m.fiatAmount).map(([m]) => ({ cents: cents(m.fiatAmount), currency: m.fiatCurrency ?? "" }))
    return {
      moves: new Set(done.map(([, i]) => i)),
      firstAt: new Map(done.map(([, i]) => [i, i])),
      paid: closings.length > 0 || finalClosed,
      closings: closings.length || !finalClosed ? closings : [finalClosing],
    }
  }
  const moves = new Set<number>()
  const firstAt = new Map<number, number>()
  const closings: StoreKnew["closings"] = []
  for (const t of r.told) {
    const match = [...done].reverse().find(([m]) => (m.sentAt ?? m.at) <= t.at && sameState(m, t))
    if (match) {
      moves.add(match[1])
      if (!firstAt.has(match[1]) || t.at < firstAt.get(match[1])!) firstAt.set(match[1], t.at)
    }
    if (t.status === "closed" && t.fiatAmount) closings.push({ cents: cents(t.fiatAmount), currency: t.fiatCurrency ?? "" })
  }
  if (!closings.length && finalClosed) closings.push(finalClosing)
  return { moves, firstAt, paid: closings.length > 0, closings }
}

const DISPUTE_STATUSES = ["dispute", "checking", "re_calculation"]
/** Flags whose raising depends on the store's own attempts and timing, not on the three records: never required, never unexpected. */
const UNDERIVED_FLAGS = ["capture_failed", "order_cancel_failed"]

export type ExpectedFlags = { required: string[]; allowed: string[] }

/**
 * The flags a pay-in's ledger row must carry (`required`) and may carry (`allowed`, the required
 * included), derived from the service's record (the moves' answers) and Medusa's (the session, its
 * captures, the order), by the rules README.md states (Which amount Medusa books; Reliability:
 * "The merchant sees every exception"). A move's flag is required only when the store was told
 * of that move (`storeKnew`: `dispute_after_payment` only when it was told of a `closed` before
 * the dispute); one it was never told of is allowed, not required. The money flags need the store
 * to have been told the pay-in `closed`:
 * - `underpayment` / `overpayment`: at each move into `closed`, and into `re_calculation` after a
 *   payment, the amount (or currency) against the session's asked amount: less or another currency,
 *   more;
 * - `dispute_after_payment`: a move into dispute, checking or re_calculation after one into `closed`;
 * - `late_payment`: money arrived after the service canceled the pay-in and nothing was captured
 *   (captured anyway: the store had not ended it yet, allowed either way);
 * - `paid_without_order` / `stray_payment`: money arrived, no order: the session still there, or
 *   deleted after Medusa captured its money / deleted before (a deleted session's money is stray even
 *   when its cart became an order through a new session);
 * - `stray_payment` / `late_payment`: allowed on a paid pay-in whose order took money from another
 *   pay-in of it (pay again); `captured_equals_arrived` wants one of them when it captured nothing;
 * - `paid_elsewhere`: allowed on a pay-in canceled unpaid whose payment collection has another paid one;
 * - `unknown_payin`: allowed when the service holds two pay-ins for one session (which one gets it is the store's timing);
 * - `created_mismatch`: never (the soak asks the sandbox for nothing else than the session amount);
 * - `capture_failed` / `order_cancel_failed`: not derived (UNDERIVED_FLAGS).
 */
/** Medusa holds a captured Payment of the pay-in's session though the session is gone, and no order. */
export function capturedBeforeDeleted(r: PayinRecords): boolean {
  return !r.medusa.order && (!r.medusa.session || r.medusa.session.deleted) && r.medusa.payments.some((p) => !p.canceled && p.captures.length > 0)
}

export function expectedFlags(
  r: PayinRecords,
  context: { captured: number; siblingPaid: boolean; sessionShared: boolean }
): ExpectedFlags {
  const required = new Set<string>()
  const allowed = new Set<string>(UNDERIVED_FLAGS)
  const session = r.medusa.session
  const knew = storeKnew(r)
  // each move's flags, into `allowed` whatever the store knew, into `required` when it was told of
  // the move (and, for a dispute, of a payment before it)
  // the payment counts as known before a later move only when the store heard of it first (a lost
  // `closed` retried after the dispute's callbacks looks to the store like the dispute's close)
  let paid = false
  let toldPaidAt = Infinity
  r.moves.forEach((m, i) => {
    if (m.http !== 200 || !m.status) return
    const told = knew.moves.has(i)
    const paidFirst = told && toldPaidAt < knew.firstAt.get(i)!
    const flag = (f: string, known: boolean) => {
      allowed.add(f)
      if (told && known) required.add(f)
    }
    if (DISPUTE_STATUSES.includes(m.status) && paid) flag("dispute_after_payment", paidFirst)
    if (session && m.fiatAmount && (m.status === "closed" || (m.status === "re_calculation" && paid))) {
      const other = (m.fiatCurrency ?? "").toLowerCase() !== session.currency.toLowerCase()
      const amount = cents(m.fiatAmount)
      const known = m.status === "closed" || paidFirst
      if (other || amount < session.amount) flag("underpayment", known)
      else if (amount > session.amount) flag("overpayment", known)
    }
    if (m.status === "closed") {
      paid = true
      if (told) toldPaidAt = Math.min(toldPaidAt, knew.firstAt.get(i)!)
    }
  })
  const arrived = arrivedOf(r.moves)
  if (arrived?.late) {
    allowed.add("late_payment")
    // (without the session, pay again's replaced one, its captures are out of sight: allowed only)
    if (context.captured === 0 && knew.paid && session) required.add("late_payment")
  }
  if (arrived && (!r.medusa.order || !session || session.deleted)) {
    // Medusa captured the session's money before it deleted the session (a completion that failed
    // after the capture), no order: paid without order, not stray (soak seed 1, 30 minutes)
    const flag = (session && !session.deleted) || capturedBeforeDeleted(r) ? "paid_without_order" : "stray_payment"
    allowed.add(flag)
    // a late payment into a pay-in whose session pay again replaced: late_payment (above) or stray, by the store's timing
    if (knew.paid && !arrived.late) required.add(flag)
  }
  // money into two pay-ins of one order (pay again): the one booked second is flagged, stray or late (which one is the store's timing)
  if (arrived && context.siblingPaid) {
    allowed.add("stray_payment")
    allowed.add("late_payment")
  }
  if (!arrived && r.service.status === "canceled" && context.siblingPaid) allowed.add("paid_elsewhere")
  if (context.sessionShared) allowed.add("unknown_payin")
  for (const f of required) allowed.add(f)
  return { required: [...required].sort(), allowed: [...allowed].sort() }
}

/** After a PostgreSQL or Redis restart ended, Medusa core's own 5xx are still counted to it for this long. */
export const INFRA_AFTER_MS = 30_000
const SERVICE_FAULT_KINDS = ["service_5xx", "service_timeout", "service_slow"]
const INFRA_FAULT_KINDS = ["postgres_restart_fast", "postgres_restart_immediate", "redis_restart"]

/**
 * The store API's 5xx answers against the fault log. The README promises 503 from the plugin's
 * store routes while the service is unreachable (`GET /store/payin/banks`), and nothing else: a
 * plugin route's 503 in a service fault is allowed; Medusa core's own 5xx while PostgreSQL or
 * Redis restarts (and INFRA_AFTER_MS after) are known and counted apart, by the fault they fell in;
 * every other 5xx is a violation.
 */
export function classifyServerErrors(
  errors: readonly ServerError[],
  faults: readonly FaultRecord[]
): { allowed: number; known: Record<string, number>; violations: { error: ServerError; detail: string }[] } {
  const out = { allowed: 0, known: {} as Record<string, number>, violations: [] as { error: ServerError; detail: string }[] }
  const within = (f: FaultRecord, at: number, afterMs: number) => f.startedAt !== undefined && at >= f.startedAt && at <= (f.endedAt ?? Infinity) + afterMs
  for (const e of errors) {
    const plugin = /^\w+ \/store\/payin\//.test(e.request) || /"code":"payin_/.test(e.body)
    const service = faults.find((f) => SERVICE_FAULT_KINDS.includes(f.kind) && within(f, e.at, 0))
    const infra = faults.find((f) => INFRA_FAULT_KINDS.includes(f.kind) && within(f, e.at, INFRA_AFTER_MS))
    if (plugin && e.status === 503 && (service || infra)) out.allowed++
    else if (!plugin && infra) {
      const key = `${infra.kind} ${new Date(infra.startedAt!).toISOString().slice(11, 19)}`
      out.known[key] = (out.known[key] ?? 0) + 1
    } else {
      const near = faults.filter((f) => within(f, e.at, INFRA_AFTER_MS)).map((f) => f.kind)
      out.violations.push({ error: e, detail: `${e.request} answered ${e.status} at ${new Date(e.at).toISOString().slice(11, 23)} (faults then: ${near.join(", ") || "none"}): ${e.body.slice(0, 200)}` })
    }
  }
  return out
}

export function audit(records: readonly PayinRecords[], store: { serverErrors: readonly ServerError[]; faults: readonly FaultRecord[]; answered: number } = { serverErrors: [], faults: [], answered: 0 }): AuditResult {
  const invariants = Object.fromEntries(Object.keys(INVARIANTS).map((k) => [k, { checks: 0, violations: 0 }])) as AuditResult["invariants"]
  const violations: Violation[] = []
  const check = (invariant: Invariant, r: PayinRecords, ok: boolean, detail: () => string) => {
    invariants[invariant].checks++
    if (ok) return
    invariants[invariant].violations++
    violations.push({ invariant, payinId: r.payinId, orderId: r.medusa.order?.id ?? r.ledger?.orderId ?? null, detail: detail() })
  }
  const result: AuditResult = {
    invariants,
    violations,
    money: { payinsPaid: 0, late: 0, lateCaptured: 0, arrived: 0, captured: 0 },
    flags: { missing: {}, unexpected: {} },
    serverErrors: { allowed: 0, known: {}, violations: 0 },
  }
  const ordersSeen = new Set<string>()
  // what the flags' rules need of a pay-in's neighbours: the collections with money, the sessions with two pay-ins
  const paidCollections = new Map<string, number>()
  // pay-ins of an order whose money may go to it: not a changed cart's old one (stray), but an
  // ended one paid late (pay again's old pay-in, its session replaced by the new one's)
  const paidOrders = new Map<string, number>()
  const perSession = new Map<string, number>()
  for (const r of records) {
    perSession.set(r.sessionId, (perSession.get(r.sessionId) ?? 0) + 1)
    // a deleted session's money (the cart changed) is no payment of the collection
    const c = r.medusa.session && !r.medusa.session.deleted ? r.medusa.session.collectionId : null
    const arrived = arrivedOf(r.moves)
    if (c && arrived) paidCollections.set(c, (paidCollections.get(c) ?? 0) + 1)
    const o = r.medusa.order?.id
    if (o && arrived && (c || arrived.late)) paidOrders.set(o, (paidOrders.get(o) ?? 0) + 1)
  }

  for (const r of records) {
    const arrived = arrivedOf(r.moves)
    const { session, payments, order } = r.medusa
    const captured = payments.reduce((sum, p) => sum + p.captures.reduce((a, b) => a + b, 0), 0)
    result.money.captured += captured
    const moved = r.moves.some((m) => m.http === 200)
    if (!moved && r.service.status !== "active" && r.service.status !== "canceled") {
      // the service moved a pay-in nobody asked it to: the audit cannot say what arrived
      check("captured_equals_arrived", r, false, () => `the service shows ${r.service.status} with no recorded move`)
    }

    if (arrived && session) {
      result.money.payinsPaid++
      result.money.arrived += arrived.cents
      if (arrived.late) result.money.late++
      if (arrived.late && captured > 0) result.money.lateCaptured++
      const cap = order?.total ?? session.amount
      const knew = storeKnew(r)
      // the service closed it for one amount, or (paid, then a dispute recalculated and closed it
      // again) for several: the store books one it was told of, the first it learned
      const dues = [...new Set(knew.closings.map((c) => (c.currency.toLowerCase() === session.currency.toLowerCase() ? Math.min(c.cents, cap, session.amount) : 0)))]
      const orderCanceled = order?.status === "canceled"
      // a late payment is captured when the store had not ended the pay-in yet, else it is only
      // flagged (README: Which amount Medusa books); money the store was never told of (every
      // callback lost, the lookups saw only a dispute after it) is not booked until it is
      const flagged = (...f: string[]) => f.some((x) => r.ledger?.flagKinds.includes(x))
      // pay again: another pay-in of the order booked it first; this one is flagged, not captured
      const tookOther = ((paidCollections.get(session.collectionId) ?? 0) > 1 || (paidOrders.get(order?.id ?? "") ?? 0) > 1) && !session.deleted && captured === 0 && (order?.captured ?? 0) > 0 && flagged("stray_payment", "late_payment")
      const ok = !knew.paid || session.deleted
        ? captured === 0
        : arrived.late
          ? (captured === 0 && flagged("late_payment")) || (dues.includes(captured) && !orderCanceled)
          : dues.includes(captured) || tookOther
      check("captured_equals_arrived", r, ok, () =>
        `arrived ${arrived.closings.map(money).join(", then ")} ${arrived.currency}${arrived.late ? " after the window" : ""}, order total ${money(cap)}, ` +
        `captured ${money(captured)} (expected ${
          knew.paid ? `${dues.map(money).join(" or ")}${arrived.late ? " or 0 with late_payment" : ""}` : `0: the store was never told it closed, it ends ${r.service.status}`
        }); told ${r.told ? r.told.map((t) => `${t.via} ${t.status} ${t.fiatAmount ?? ""}`).join(", ") || "nothing" : "(every move)"}; ledger flags ${JSON.stringify(r.ledger?.flagKinds ?? [])}`
      )
      if (captured > 0) {
        const live = payments.filter((p) => !p.canceled)
        check("captured_once", r, live.length === 1, () => `${live.length} payments for the session (${payments.map((p) => `${p.id}: ${p.captures.map(money).join("+")}`).join(", ")})`)
      }
    } else if (arrived && !session && capturedBeforeDeleted(r)) {
      // captured before Medusa deleted the session, no order (flagged paid_without_order): what arrived, once
      const due = Math.min(arrived.cents, payments[0].amount)
      check("captured_equals_arrived", r, captured === due && payments.length === 1, () => `arrived ${money(arrived.cents)} into session ${r.sessionId}, deleted after its capture, captured ${money(captured)} in ${payments.length} payments`)
    } else if (arrived && !session) {
      // Medusa deleted the session (the cart changed): a stray payment, never captured (its flag: flags_match)
      check("captured_equals_arrived", r, captured === 0, () => `arrived ${money(arrived.cents)} into a deleted session ${r.sessionId}, captured ${money(captured)}`)
    } else {
      check("no_capture_without_money", r, captured === 0, () => `no money arrived (service: ${r.service.status}), captured ${money(captured)}`)
    }

    if (r.ledger) {
      const c = session?.collectionId
      const o = r.medusa.order?.id
      const siblingPaid = Boolean(c && (paidCollections.get(c) ?? 0) > (arrived ? 1 : 0)) || Boolean(o && (paidOrders.get(o) ?? 0) > (arrived ? 1 : 0))
      const want = expectedFlags(r, { captured, siblingPaid, sessionShared: (perSession.get(r.sessionId) ?? 0) > 1 })
      const have = r.ledger.flagKinds
      const missing = want.required.filter((f) => !have.includes(f))
      const unexpected = have.filter((f) => !want.allowed.includes(f))
      for (const f of missing) result.flags.missing[f] = (result.flags.missing[f] ?? 0) + 1
      for (const f of unexpected) result.flags.unexpected[f] = (result.flags.unexpected[f] ?? 0) + 1
      check("flags_match", r, missing.length === 0 && unexpected.length === 0, () =>
        `ledger flags ${JSON.stringify(have)}; missing ${JSON.stringify(missing)}, unexpected ${JSON.stringify(unexpected)} ` +
        `(moves: ${r.moves.filter((m) => m.http === 200).map((m) => `${m.action}→${m.status}${m.fiatAmount ? ` ${m.fiatAmount}` : ""}`).join(", ")}; ` +
        `asked ${session ? money(session.amount) : "?"}, captured ${money(captured)}, order ${r.medusa.order?.status ?? "none"})`
      )
    }

    check("final_status_matches", r, r.ledger?.status === r.service.status, () =>
      r.ledger ? `ledger ${r.ledger.status}${r.ledger.effectPending ? ` (effect ${r.ledger.effectPending} pending)` : ""}, service ${r.service.status}` : `no ledger row (service: ${r.service.status})`
    )

    if (order && !session?.deleted && !ordersSeen.has(order.id)) {
      ordersSeen.add(order.id)
      const paidInTime = arrived && !arrived.late
      check("no_paid_order_canceled", r, order.status !== "canceled" || (order.captured === 0 && !paidInTime), () =>
        `order ${order.status}, captured ${money(order.captured)}, money ${arrived ? `arrived ${money(arrived.cents)}${arrived.late ? " late" : ""}` : "none"}`
      )
      check("captured_once", r, order.captured <= order.total, () => `order captured ${money(order.captured)} of a ${money(order.total)} total`)
      const status =
        order.captured === 0 ? !["captured", "partially_captured"].includes(order.paymentStatus)
        : order.captured >= order.total ? order.paymentStatus === "captured"
        : order.paymentStatus === "partially_captured"
      check("order_records_agree", r, order.transactions === order.captured && status, () =>
        `order transactions ${money(order.transactions)}, captures ${money(order.captured)} of ${money(order.total)}, payment status ${order.paymentStatus}`
      )
    }
  }

  const classified = classifyServerErrors(store.serverErrors, store.faults)
  // one check per store API answer (the 5xx kept are the first 500)
  invariants.no_5xx_outside_faults.checks += Math.max(store.answered, store.serverErrors.length)
  invariants.no_5xx_outside_faults.violations += classified.violations.length
  result.serverErrors = { allowed: classified.allowed, known: classified.known, violations: classified.violations.length }
  for (const v of classified.violations) violations.push({ invariant: "no_5xx_outside_faults", payinId: "(store API)", orderId: null, detail: v.detail })
  return result
}

/** Names the faults that overlapped each violation's checkout (from 30 s before it to 30 s after). */
export function faultsAround(violations: Violation[], records: readonly PayinRecords[], faults: readonly FaultRecord[]): Violation[] {
  const byId = new Map(records.map((r) => [r.payinId, r]))
  return violations.map((v) => {
    const w = byId.get(v.payinId)?.window
    if (!w) return { ...v, faults: [] }
    const near = faults.filter((f) => f.startedAt !== undefined && f.startedAt <= w.to + 30_000 && (f.endedAt ?? Infinity) >= w.from - 30_000)
    return { ...v, faults: near.map((f) => `${f.kind} ${new Date(f.startedAt!).toISOString()}–${f.endedAt ? new Date(f.endedAt).toISOString() : "?"}`) }
  })
}

// ---- I/O: the drain, and reading the three records ----

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function withDb<T>(databaseUrl: string, fn: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  try {
    return await fn(db)
  } finally {
    await db.end()
  }
}

/** Webhooks not yet applied and Medusa effects not yet done, as the ledger's tables hold them. */
async function backlog(databaseUrl: string): Promise<{ inbox: number; effects: number }> {
  return withDb(databaseUrl, async (db) => {
    const inbox = await db.query(`select count(*)::int as n from payin_webhook_event where state in ('received', 'failed') and deleted_at is null`)
    // an effect deferred to a later time (an order's cancel at the end of pay again's grace) is no backlog
    const effects = await db.query(
      `select count(*)::int as n from payin_transaction where effect_pending is not null and (next_effect_at is null or next_effect_at <= now()) and deleted_at is null`
    )
    return { inbox: inbox.rows[0].n, effects: effects.rows[0].n }
  })
}

async function waitQuiet(databaseUrl: string, maxMs: number): Promise<{ ms: number; left: { inbox: number; effects: number } }> {
  const started = Date.now()
  let quiet = 0
  let left = { inbox: -1, effects: -1 }
  while (Date.now() - started < maxMs) {
    left = await backlog(databaseUrl)
    quiet = left.inbox === 0 && left.effects === 0 ? quiet + 1 : 0
    if (quiet >= 3) break
    await sleep(2_000)
  }
  return { ms: Date.now() - started, left }
}

export type DrainReport = {
  webhooksIdleMs: number
  quietMs: number
  reconciledNow: number
  quietAfterMs: number
  notificationsMs: number
  left: { inbox: number; effects: number; notifications: number }
}

/** Shopper notifications the plugin owes and will retry within 2 minutes (a send cut by a kill near the end). */
async function notificationsOwed(databaseUrl: string): Promise<number> {
  return withDb(databaseUrl, async (db) =>
    Number(
      (
        await db.query(
          `select count(*)::int as n from payin_notification
           where status in ('due', 'failed') and next_attempt_at is not null and next_attempt_at <= now() + interval '2 minutes' and deleted_at is null`
        )
      ).rows[0].n
    )
  )
}

/**
 * The drain, after the load and the faults stopped (every process up): the service's webhook
 * queue emptied (its retries included, at most 3 minutes), then the worker's backlog (inbox
 * entries not applied, effects pending) gone for 6 s running (at most 2 minutes); then "Reconcile
 * now" from the admin for every pay-in whose ledger status still differs from the service's or
 * whose effect is pending, and the backlog waited out again (at most 1 minute); then the shopper
 * notifications the plugin still owes and retries within 2 minutes, sent (at most 2.5 minutes).
 */
export async function drain(topology: Topology, log: (line: string) => void): Promise<DrainReport> {
  const t0 = Date.now()
  await Promise.race([topology.sandbox.webhooksIdle(), sleep(180_000)])
  const webhooksIdleMs = Date.now() - t0
  const first = await waitQuiet(topology.databaseUrl, 120_000)
  const service = new Map(topology.sandbox.transactions().map((t) => [t.id, t.status]))
  const stale = await withDb(topology.databaseUrl, async (db) =>
    (
      await db.query(
        `select id, service_id, status, effect_pending is not null and (next_effect_at is null or next_effect_at <= now()) as due from payin_transaction where deleted_at is null`
      )
    ).rows.filter((r) => r.due || (r.service_id && service.get(r.service_id) && service.get(r.service_id) !== r.status))
  )
  const base = topology.anyServer()!
  const token = await adminToken(base, TEST_ADMIN.email, TEST_ADMIN.password)
  for (const row of stale) {
    const res = await request(`${base}/admin/payin/transactions/${row.id}/reconcile`, { method: "POST", headers: { authorization: `Bearer ${token}` } })
    await res.body.dump()
    if (res.statusCode !== 200) log(`Reconcile now of ${row.id}: ${res.statusCode}`)
  }
  const after = stale.length ? await waitQuiet(topology.databaseUrl, 60_000) : { ms: 0, left: first.left }
  // the retry job (every minute) sends what a kill cut short; a pending row waits 30 s for its sender
  const t1 = Date.now()
  let owed = await notificationsOwed(topology.databaseUrl)
  while (owed > 0 && Date.now() - t1 < 150_000) {
    await sleep(5_000)
    owed = await notificationsOwed(topology.databaseUrl)
  }
  const notificationsMs = Date.now() - t1
  log(`drain: webhooks idle after ${webhooksIdleMs} ms, backlog gone after ${first.ms} ms, Reconcile now for ${stale.length} pay-ins, notifications owed ${owed} after ${notificationsMs} ms`)
  return { webhooksIdleMs, quietMs: first.ms, reconciledNow: stale.length, quietAfterMs: after.ms, notificationsMs, left: { ...after.left, notifications: owed } }
}

/** The three records of every pay-in the service holds. */
export async function collectRecords(topology: Topology, checkouts: readonly Checkout[]): Promise<PayinRecords[]> {
  const res = await request(`${topology.sandbox.url}/_sandbox/transactions`)
  const service = (await res.body.json()) as Transaction[]
  // each pay-in's moves and its checkout's window: the checkout's first pay-in and its later ones
  const byPayin = new Map<string, { moves: ServiceMove[]; startedAt: number; endedAt?: number; orderId?: string }>()
  for (const c of checkouts) {
    if (c.payinId) byPayin.set(c.payinId, c)
    for (const a of c.also ?? []) byPayin.set(a.payinId, { moves: a.moves, startedAt: c.startedAt, endedAt: c.endedAt, orderId: c.orderId })
  }
  const sessionIds = service.map((t) => String(t.extra?.externalTransactionId ?? ""))

  const db = await withDb(topology.databaseUrl, async (db) => {
    const sessions = (
      await db.query(
        `select id, amount::text, currency_code, payment_collection_id, deleted_at is not null as deleted from payment_session where id = any($1)`,
        [sessionIds]
      )
    ).rows
    const payments = (
      await db.query(
        `select p.id, p.payment_session_id, p.amount::text, p.canceled_at is not null as canceled,
           coalesce((select json_agg(c.amount::text) from capture c where c.payment_id = p.id and c.deleted_at is null), '[]'::json) as captures
         from payment p where p.deleted_at is null and p.payment_session_id = any($1)`,
        [sessionIds]
      )
    ).rows
    const collectionIds = sessions.map((s) => s.payment_collection_id)
    const orders = (
      await db.query(
        `select opc.payment_collection_id, o.id, o.status from order_payment_collection opc join "order" o on o.id = opc.order_id
         where opc.deleted_at is null and opc.payment_collection_id = any($1)`,
        [collectionIds]
      )
    ).rows
    // a pay-in whose session Medusa deleted (pay again replaced it, the cart changed): its order is
    // the one its checkout's cart became, as the shopper saw it
    const found = new Set(sessions.map((s) => s.id))
    const sessionless = service.filter((t) => !found.has(String(t.extra?.externalTransactionId ?? ""))).flatMap((t) => byPayin.get(t.id)?.orderId ?? [])
    const checkoutOrders = (await db.query(`select id, status from "order" where id = any($1)`, [sessionless])).rows
    const orderIds = [...new Set([...orders.map((o) => o.id), ...checkoutOrders.map((o) => o.id)])]
    // every capture of the order's collections (a second pay-in of the same order included)
    const orderCaptures = (
      await db.query(
        `select opc.order_id, coalesce(sum(c.amount), 0)::text as captured
         from order_payment_collection opc join payment p on p.payment_collection_id = opc.payment_collection_id and p.deleted_at is null
         join capture c on c.payment_id = p.id and c.deleted_at is null
         where opc.deleted_at is null and opc.order_id = any($1) group by opc.order_id`,
        [orderIds]
      )
    ).rows
    const transactions = (
      await db.query(`select order_id, coalesce(sum(amount), 0)::text as total from order_transaction where deleted_at is null and order_id = any($1) group by order_id`, [orderIds])
    ).rows
    const ledger = (
      // by the service's id, or, for a row whose creation answer was never recorded (no service id), by its session
      await db.query(
        `select id, coalesce(service_id, session_id) as service_id, status, flag_kinds, effect_pending, order_id from payin_transaction
         where deleted_at is null and (service_id = any($1) or (service_id is null and session_id = any($2)))`,
        [service.map((t) => t.id), sessionIds]
      )
    ).rows
    const history = (
      await db.query(
        `select transaction_id, from_status, to_status, source, note, created_at from payin_status_change where transaction_id = any($1) order by id`,
        [ledger.map((l) => l.id)]
      )
    ).rows
    return { sessions, payments, orders, checkoutOrders, orderIds, orderCaptures, transactions, ledger, history }
  })

  // totals and payment statuses as Medusa's admin API computes them
  const base = topology.anyServer()!
  const token = await adminToken(base, TEST_ADMIN.email, TEST_ADMIN.password)
  const adminOrders = new Map<string, { total: number; payment_status: string; status: string }>()
  for (let i = 0; i < db.orderIds.length; i += 50) {
    const ids = db.orderIds.slice(i, i + 50)
    const query = ids.map((id) => `id[]=${encodeURIComponent(id)}`).join("&")
    const r = await request(`${base}/admin/orders?${query}&fields=id,status,total,payment_status&limit=50`, { headers: { authorization: `Bearer ${token}` } })
    const body = (await r.body.json()) as { orders?: { id: string; total: number; payment_status: string; status: string }[] }
    if (r.statusCode !== 200 || !body.orders) throw new Error(`GET /admin/orders: ${r.statusCode} ${JSON.stringify(body).slice(0, 300)}`)
    for (const o of body.orders) adminOrders.set(o.id, o)
  }

  const sessionOf = new Map(db.sessions.map((s) => [s.id, s]))
  const orderOfCollection = new Map(db.orders.map((o) => [o.payment_collection_id, o]))
  const orderById = new Map<string, { id: string; status: string }>([...db.orders, ...db.checkoutOrders].map((o) => [o.id, o]))
  const capturedOf = new Map(db.orderCaptures.map((o) => [o.order_id, cents(o.captured)]))
  const transactionsOf = new Map(db.transactions.map((t) => [t.order_id, cents(t.total)]))
  const ledgerOf = new Map(db.ledger.map((l) => [l.service_id, l]))
  // what the store was told: callbacks a server answered 2xx at the balancer, lookups the sandbox answered
  const toldOf = new Map<string, Told[]>()
  const tell = (id: string, t: Told) => (toldOf.get(id) ?? toldOf.set(id, []).get(id)!).push(t)
  for (const c of topology.callbacks) {
    if (c.path === "forwarded" && c.answer !== undefined && c.answer >= 200 && c.answer < 300) {
      tell(c.transactionId, { at: c.at, via: "callback", status: c.status, fiatAmount: c.fiatAmount, fiatCurrency: c.fiatCurrency })
    }
  }
  for (const l of topology.sandbox.lookups()) {
    tell(l.transactionId, { at: Date.parse(l.time), via: "lookup", status: l.status, fiatAmount: l.fiatAmount, fiatCurrency: l.fiatCurrency })
  }
  for (const list of toldOf.values()) list.sort((a, b) => a.at - b.at)
  return service.map((t) => {
    const sessionId = String(t.extra?.externalTransactionId ?? "")
    const s = sessionOf.get(sessionId)
    const o = s ? orderOfCollection.get(s.payment_collection_id) : orderById.get(byPayin.get(t.id)?.orderId ?? "")
    const admin = o ? adminOrders.get(o.id) : undefined
    const l = ledgerOf.get(t.id) ?? ledgerOf.get(sessionId)
    const c = byPayin.get(t.id)
    return {
      payinId: t.id,
      sessionId,
      service: { status: t.status, fiatAmount: t.fiatAmount, fiatCurrency: t.fiatCurrency },
      moves: c?.moves ?? [],
      told: toldOf.get(t.id) ?? [],
      window: c ? { from: c.startedAt, to: c.endedAt ?? Date.now() } : null,
      medusa: {
        session: s ? { amount: cents(s.amount), currency: s.currency_code, collectionId: s.payment_collection_id, deleted: s.deleted } : null,
        payments: db.payments
          .filter((p) => p.payment_session_id === sessionId)
          .map((p) => ({ id: p.id, amount: cents(p.amount), canceled: p.canceled, captures: (p.captures as string[]).map(cents) })),
        order: o
          ? {
              id: o.id,
              status: admin?.status ?? o.status,
              total: cents(admin?.total ?? 0),
              paymentStatus: admin?.payment_status ?? "(not in the admin API)",
              captured: capturedOf.get(o.id) ?? 0,
              transactions: transactionsOf.get(o.id) ?? 0,
            }
          : null,
      },
      ledger: l
        ? {
            id: l.id,
            status: l.status,
            flagKinds: l.flag_kinds ?? [],
            effectPending: l.effect_pending,
            orderId: l.order_id,
            history: db.history
              .filter((h) => h.transaction_id === l.id)
              .map((h) => `${new Date(h.created_at).toISOString().slice(11, 23)} ${h.from_status ?? "–"}→${h.to_status} (${h.source})${h.note ? ` ${h.note}` : ""}`),
          }
        : null,
    }
  })
}
