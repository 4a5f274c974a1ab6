import { MedusaError } from "@medusajs/framework/utils"
import type { Transaction } from "../../../client/schemas"
import { compareReceived, eq } from "../../../money"
import { DISPUTE_STATUSES, type LedgerStatus, type PayinFlag, type StatusEffect, effectOf, isDisputeStatus, nextStatus } from "../../../status"
import type { Db } from "../db"
import type { LedgerNotice, LedgerRow, StatusSource } from "./types"

export async function lockRow(trx: Db, ledgerId: string): Promise<LedgerRow> {
  const { rows } = await trx.raw("select * from payin_transaction where id = ? and deleted_at is null for update", [ledgerId])
  if (!rows[0]) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, `Pay-in ${ledgerId} was not found`)
  }
  return rows[0]
}

/** Written by every statement that writes `flags`: the admin's flag filters read flag_kinds. */
export const FLAG_KINDS_SQL = (flags: string) => `(select array_agg(k order by k) from jsonb_object_keys(${flags}) as k)`

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

/** Never the whole answer: the ledger row holds the latest one, and a copy per change cost 1 KB a row. */
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

/** Shared by both status moves (moveStatus, recordCreated's one statement) so they cannot drift. */
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

export function serviceColumns(current: Pick<LedgerRow, "status">, tx: Transaction): { sql: string; bindings: unknown[] } {
  return {
    sql: `service_id = ?, service_data = ?::jsonb, fiat_amount = ?, fiat_currency = ?,
       bank = ?, requisite = ?::jsonb, payment_page_url = coalesce(?, payment_page_url),
       assigned_amount = coalesce(assigned_amount, ?), ${CREDITED.sql}`,
    bindings: [
      tx.id,
      JSON.stringify(tx),
      tx.fiatAmount,
      tx.fiatCurrency,
      tx.bank ?? null,
      JSON.stringify(tx.requisite ?? null),
      tx.externalPaymentPageUrl ?? null,
      assignedBy(current, tx),
      ...CREDITED.bindings(tx),
    ],
  }
}

/**
 * What the service credited at the pay-in's last `closed`: a capture after a dispute recalculated
 * it (not closed again) books that, not the recalculated amount (soak seed 1, 30 minutes).
 */
export const CREDITED = {
  sql: "credited_amount = case when ?::text = 'closed' then ? else credited_amount end",
  bindings: (tx: Pick<Transaction, "status" | "fiatAmount">) => [tx.status, tx.fiatAmount],
}

/** The amount the service assigned, known from its first `active` (assigned_amount keeps the first one known). */
export function assignedBy(current: Pick<LedgerRow, "status">, tx: Transaction): string | null {
  return current.status === "creating" && tx.status === "active" ? tx.fiatAmount : null
}

/** The flags a status move raises: what arrived against what was asked (closing, or recalculated once paid), a dispute after payment. */
export function flagsOfMove(
  before: LedgerRow,
  after: LedgerRow,
  to: LedgerStatus,
  tx: Transaction
): { flag: PayinFlag; details: Record<string, unknown> }[] {
  const flags: { flag: PayinFlag; details: Record<string, unknown> }[] = []
  if (to === "closed" || (to === "re_calculation" && before.paid_at)) {
    const money = compareReceived(after, tx)
    if (money) flags.push(money)
  }
  if (isDisputeStatus(to) && before.paid_at && !isDisputeStatus(before.status)) {
    flags.push({ flag: "dispute_after_payment", details: { status: to, captured: Boolean(after.captured_at), fiat_amount: tx.fiatAmount } })
  }
  return flags
}

/** The money and dispute fields the service shows now are those the ledger last recorded for the pay-in. */
export function ledgerHasSeen(row: Pick<LedgerRow, "service_data">, current: Transaction): boolean {
  const seen = (row.service_data ?? {}) as Partial<Transaction>
  return SEEN_FIELDS.every((field) => (seen[field] ?? null) === (current[field] ?? null))
}
const SEEN_FIELDS = ["fiatAmount", "fiatCurrency", "disputeMerchantCheckUrl", "disputeMerchantFiatAmount", "disputeTraderCheckUrl", "disputeTraderFiatAmount"] as const

/**
 * A paid pay-in reported `closed` again with money or dispute fields the ledger never recorded: the
 * service disputed it and closed it again, and this close came before the dispute's callbacks (or
 * without them). What a dispute and a re_calculation after the payment would have flagged.
 */
export function closedAgainUnseen(before: LedgerRow, tx: Transaction): boolean {
  return before.status === "closed" && tx.status === "closed" && Boolean(before.paid_at) && !ledgerHasSeen(before, tx)
}

export function flagsOfUnseenDispute(before: LedgerRow, after: LedgerRow, tx: Transaction): { flag: PayinFlag; details: Record<string, unknown> }[] {
  const money = compareReceived(after, tx)
  return [
    { flag: "dispute_after_payment", details: { status: "closed", captured: Boolean(before.captured_at), fiat_amount: tx.fiatAmount, unseen: true } },
    ...(money ? [money] : []),
  ]
}

/** The history row and flags of a close again after a dispute the ledger never saw; the dispute's own callbacks are old news then (apply.ts asks the service first). */
export async function recordUnseenDispute(trx: Db, before: LedgerRow, after: LedgerRow, source: StatusSource, tx: Transaction): Promise<LedgerNotice[]> {
  await history(trx, before, "closed", "closed", source, "closed again after a dispute the store had not heard of", tx)
  const notices: LedgerNotice[] = []
  for (const { flag, details } of flagsOfUnseenDispute(before, after, tx)) notices.push(...(await addFlag(trx, after, flag, details)))
  return notices
}

export function effectOfMove(row: Pick<LedgerRow, "paid_at" | "captured_at" | "store_canceled_at">, to: LedgerStatus): StatusEffect | null {
  return effectOf(to, { paid: Boolean(row.paid_at), captured: Boolean(row.captured_at), ended: Boolean(row.store_canceled_at) })
}

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

export const EFFECT_RETRY_BASE_SECONDS = 30
export const EFFECT_RETRY_MAX_SECONDS = 3600

/** ±25 % jitter: the failures of one outage are not retried in one burst. */
export function effectRetryDelaySeconds(attempts: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempts, 1) - 1, 16)
  const base = Math.min(EFFECT_RETRY_MAX_SECONDS, EFFECT_RETRY_BASE_SECONDS * 2 ** exponent)
  return Math.min(EFFECT_RETRY_MAX_SECONDS, Math.round(base * (0.75 + 0.5 * random())))
}
