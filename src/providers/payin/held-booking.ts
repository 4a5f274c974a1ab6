// A booking of the money path holds a paid pay-in (its lock and its effect's claim, the row as the
// ledger just wrote it) and the session it books, read a moment before, while Medusa's workflow
// runs for that session. The provider's hooks Medusa calls meanwhile answer from what the booking
// holds instead of reading both again: nothing else writes what the answer depends on meanwhile
// (a paid pay-in's status, amounts and end are written under that lock; a pay-in session's amount
// never changes, updatePayment refuses it).
import { AsyncLocalStorage } from "async_hooks"
import type { LedgerRow } from "../../modules/payin/ledger/types"
import type { AskedSession } from "./answer"

export type HeldBooking = { row: LedgerRow; session: AskedSession & { id: string } }
type Held = HeldBooking & { open: boolean }

// one store per process, whichever copy of this file Medusa's loader and the money path each import
const KEY = Symbol.for("medusa-plugin-payin.held-booking")
const store: AsyncLocalStorage<Held> = ((globalThis as Record<symbol, unknown>)[KEY] ??= new AsyncLocalStorage<Held>()) as AsyncLocalStorage<Held>

/** Runs `work` (Medusa's workflow for `held.session`) with the booking's row and session at hand; not after it returns. */
export async function whileHeld<T>(held: HeldBooking, work: () => Promise<T>): Promise<T> {
  const entry: Held = { ...held, open: true }
  try {
    return await store.run(entry, work)
  } finally {
    // subscribers started within the workflow keep this context: they read the ledger again
    entry.open = false
  }
}

/** What the running booking holds for this provider's session, if it is one. */
export function heldBooking(sessionId: unknown, providerId: string): HeldBooking | null {
  const held = store.getStore()
  if (!held?.open || typeof sessionId !== "string") return null
  return held.session.id === sessionId && held.row.session_id === sessionId && held.row.provider_id === providerId && held.row.paid_at ? held : null
}
