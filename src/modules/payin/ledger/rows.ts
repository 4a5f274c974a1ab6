import { MedusaError } from "@medusajs/framework/utils"
import type { Transaction } from "../../../client/schemas"
import { eq } from "../../../money"
import { DISPUTE_STATUSES, type LedgerStatus, type PayinFlag, type StatusEffect, effectOf, isDisputeStatus, nextStatus } from "../../../status"
import type { Db } from "../db"
import type { LedgerNotice, LedgerRow, StatusSource } from "./types"

// Row-level statements of the ledger, run inside its transactions (the ledger is their only
// caller; nothing outside ledger/ imports this file).

/** Serialises writers of one row across processes (a PostgreSQL row lock until the commit). */
export async function lockRow(trx: Db, ledgerId: string): Promise<LedgerRow> {
  const { rows } = await trx.raw("select * from payin_transaction where id = ? and deleted_at is null for update", [ledgerId])
  if (!rows[0]) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, `Pay-in ${ledgerId} was not found`)
  }
  return rows[0]
}

/**
 * SQL for `flag_kinds` from a `flags` object: its keys, sorted; null when there are none. Every
 * statement that writes `flags` writes `flag_kinds` with it (the admin's flag filters use it).
 */
export const FLAG_KINDS_SQL = (flags: string) => `(select array_agg(k order by k) from jsonb_object_keys(${flags}) as k)`

/** Adds a flag once, with a history note; the notice to emit, or nothing when it was there. */
export async function addFlag(trx: Db, row: LedgerRow, flag: PayinFlag, details: Record<string, unknown>): Promise<LedgerNotice[]> {
  // SET sees the row before the update: both columns are computed from the same old flags
  const flags = "coalesce(flags, '{}'::jsonb) || jsonb_build_object(?::text, ?::jsonb)"
  const entry = JSON.stringify({ at: new Date().toISOString(), ...details })
  const { rows } = await trx.raw(
    `update payin_transaction set flags = ${flags}, flag_kinds = ${FLAG_KINDS_SQL(flags)}, updated_at = now()
     where id = ? and not jsonb_exists(coalesce(flags, '{}'::jsonb), ?::text)
     returning id`,
    [flag, entry, flag, entry, row.id, flag]
  )
  if (!rows.length) return []
  await history(trx, row, row.status, row.status, "store", `flag: ${flag}`)
  return [{ kind: "flag", flag, details }]
}

/** A history row: every status change and every store-side note leaves one. */
export async function history(
  trx: Db,
  row: LedgerRow,
  from: LedgerStatus,
  to: LedgerStatus,
  source: StatusSource,
  note: string | null,
  tx: Transaction | null = null
): Promise<void> {
  await trx.raw(
    // clock_timestamp: the notes of one commit keep the order they were written in
    `insert into payin_status_change (transaction_id, from_status, to_status, source, note, service_data, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?::jsonb, clock_timestamp(), clock_timestamp())`,
    [row.id, from, to, source, note, changeDetails(row, to, tx)]
  )
}

/**
 * What of the service's answer explains a status change, as the history row keeps it (JSON, or
 * null): the amount when it is not the one the ledger held (the first one, a recalculation, what
 * arrived when it was not what was asked), and a dispute's amounts and check links. Never the whole
 * answer: the ledger row holds the latest one, and a copy per change cost 1 KB a row.
 */
export function changeDetails(row: Pick<LedgerRow, "fiat_amount">, to: LedgerStatus, tx: Transaction | null): string | null {
  if (!tx) return null
  const details: Record<string, string> = {}
  if (tx.fiatAmount != null && (row.fiat_amount == null || !eq(row.fiat_amount, tx.fiatAmount))) details.fiatAmount = String(tx.fiatAmount)
  if (isDisputeStatus(to)) {
    for (const key of ["disputeMerchantFiatAmount", "disputeTraderFiatAmount", "disputeMerchantCheckUrl", "disputeTraderCheckUrl"] as const) {
      const value = tx[key]
      if (value != null && value !== "" && value !== "0") details[key] = String(value)
    }
  }
  return Object.keys(details).length ? JSON.stringify(details) : null
}

/**
 * The columns of a status write, shared by both status writes (moveStatus and the answer to the
 * creation request): the status, paid_at on `closed`, recalculated_at on `re_calculation`,
 * disputed_at on the first move into a dispute, and the
 * Medusa effect the new status asks for (pending, its attempts and backoff reset). The effect
 * columns are also written when an effect is settled or fails (effects.ts), and a pending order
 * cancel is cleared when the store ends a pay-in (Ledger.note).
 */
export function statusColumns(to: LedgerStatus, effect: StatusEffect | null): { sql: string; bindings: unknown[] } {
  return {
    sql: `status = ?, status_changed_at = now(),
       paid_at = case when ?::text = 'closed' then coalesce(paid_at, now()) else paid_at end,
       recalculated_at = case when ?::text = 're_calculation' then now() else recalculated_at end,
       disputed_at = case when ?::text = any(?::text[]) then coalesce(disputed_at, now()) else disputed_at end,
       effect_pending = coalesce(?, effect_pending), effect_attempts = case when ?::text is null then effect_attempts else 0 end,
       next_effect_at = case when ?::text is null then next_effect_at else null end`,
    bindings: [to, to, to, to, [...DISPUTE_STATUSES], effect, effect, effect],
  }
}

/** The columns of the service's answer kept on the row (the assigned amount only from the first answer seen, unless it already moved on). */
export function serviceColumns(current: Pick<LedgerRow, "status">, tx: Transaction): { sql: string; bindings: unknown[] } {
  return {
    sql: `service_id = ?, service_data = ?::jsonb, fiat_amount = ?, fiat_currency = ?,
       bank = ?, requisite = ?::jsonb, payment_page_url = coalesce(?, payment_page_url),
       assigned_amount = coalesce(assigned_amount, ?)`,
    bindings: [
      tx.id,
      JSON.stringify(tx),
      tx.fiatAmount,
      tx.fiatCurrency,
      tx.bank ?? null,
      JSON.stringify(tx.requisite ?? null),
      tx.externalPaymentPageUrl ?? null,
      current.status === "creating" && tx.status === "active" ? tx.fiatAmount : null,
    ],
  }
}

/** The effect a move to `to` asks of a row in this state. */
export function effectOfMove(row: Pick<LedgerRow, "paid_at" | "captured_at" | "store_canceled_at">, to: LedgerStatus): StatusEffect | null {
  return effectOf(to, { paid: Boolean(row.paid_at), captured: Boolean(row.captured_at), ended: Boolean(row.store_canceled_at) })
}

/**
 * A status move: only through the table, always with a history row and its pending effect. `also`:
 * more columns set by the same statement. The row as moved, or null when the table refuses the move.
 */
export async function moveStatus(
  trx: Db,
  row: LedgerRow,
  to: LedgerStatus,
  source: StatusSource,
  tx: Transaction | null,
  note: string | null = null,
  also: { sql: string; bindings: unknown[] } | null = null
): Promise<LedgerRow | null> {
  if (!nextStatus(row.status, to, { paid: Boolean(row.paid_at) }).changed) return null
  const columns = statusColumns(to, effectOfMove(row, to))
  const { rows } = await trx.raw(
    `update payin_transaction set ${columns.sql}, ${also ? `${also.sql}, ` : ""}updated_at = now() where id = ? returning *`,
    [...columns.bindings, ...(also?.bindings ?? []), row.id]
  )
  await history(trx, row, row.status, to, source, note, tx)
  return rows[0]
}

/** The first retry of a failed Medusa effect waits this long; each further failure doubles it … */
export const EFFECT_RETRY_BASE_SECONDS = 30
/** … up to this (an effect that keeps failing is retried hourly, for good). */
export const EFFECT_RETRY_MAX_SECONDS = 3600

/**
 * Seconds until the next attempt at an effect after its `attempts`-th failure: 30 s, 1, 2, 4 …
 * minutes, at most an hour, each with ±25 % jitter (failures of one outage are not retried in
 * one burst). Whatever runs effects (webhooks, lookups, the job) waits for it; "Reconcile now" does not.
 */
export function effectRetryDelaySeconds(attempts: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempts, 1) - 1, 16)
  const base = Math.min(EFFECT_RETRY_MAX_SECONDS, EFFECT_RETRY_BASE_SECONDS * 2 ** exponent)
  return Math.min(EFFECT_RETRY_MAX_SECONDS, Math.round(base * (0.75 + 0.5 * random())))
}
