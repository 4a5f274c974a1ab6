import { countStatusChanges } from "../../../telemetry"
import type { Db } from "../db"
import { type LedgerEventSink, eventsOf } from "./events"
import type { LedgerNotice, LedgerRow } from "./types"

export type Written = { row: LedgerRow | null; notices: LedgerNotice[] }

/** Every ledger write that flags, moves a status or settles an effect commits here, or writes in one statement through writeAndEmit: none goes without its events. */
export async function commitAndEmit<T extends Written>(db: () => Db, emit: LedgerEventSink, work: (trx: Db) => Promise<T>): Promise<T> {
  const written = await db().transaction(work)
  await emitWritten(emit, written)
  return written
}

/** A write of one statement (atomic alone): no transaction around it, its events after it as commitAndEmit's. */
export async function writeAndEmit<T extends Written>(db: () => Db, emit: LedgerEventSink, work: (db: Db) => Promise<T>): Promise<T> {
  const written = await work(db())
  await emitWritten(emit, written)
  return written
}

export async function emitWritten(emit: LedgerEventSink, written: Written): Promise<void> {
  countStatusChanges(written.notices)
  if (!written.notices.length || !written.row) return
  const events = eventsOf(written.row, written.notices)
  if (events.length) await emit(events)
}

export async function rowIn(trx: Db, ledgerId: string): Promise<LedgerRow> {
  const { rows } = await trx.raw("select * from payin_transaction where id = ? and deleted_at is null", [ledgerId])
  return rows[0]
}
