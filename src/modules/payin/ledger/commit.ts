import type { Db } from "../db"
import { type LedgerEventSink, eventsOf } from "./events"
import type { LedgerNotice, LedgerRow } from "./types"

/** What one ledger write did: the row as it committed it, and what its subscribers are to know. */
export type Written = { row: LedgerRow | null; notices: LedgerNotice[] }

/**
 * Runs one ledger write in one transaction, then, after its commit, hands the events of its
 * notices to `emit`. Every ledger write that can flag, move a status or settle an effect goes
 * through here, but for the one-statement move of recordCreated, which commits on its own and
 * hands its events to emitWritten: none of them can be written without its event.
 */
export async function commitAndEmit<T extends Written>(db: () => Db, emit: LedgerEventSink, work: (trx: Db) => Promise<T>): Promise<T> {
  const written = await db().transaction(work)
  await emitWritten(emit, written)
  return written
}

/** The events of a committed write (the one place a ledger write's events are made and handed on). */
export async function emitWritten(emit: LedgerEventSink, written: Written): Promise<void> {
  if (!written.notices.length || !written.row) return
  const events = eventsOf(written.row, written.notices)
  if (events.length) await emit(events)
}

/** The row as this transaction sees it now (after its writes). */
export async function rowIn(trx: Db, ledgerId: string): Promise<LedgerRow> {
  const { rows } = await trx.raw("select * from payin_transaction where id = ? and deleted_at is null", [ledgerId])
  return rows[0]
}
