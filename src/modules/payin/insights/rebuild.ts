import type { Db } from "../db"
import type { RebuildState } from "./insights"

/** How long a rebuild step waits for the ledger's writers before it gives up (and is tried again). */
export const REBUILD_LOCK_TIMEOUT_MS = 5_000

/** The ledger stayed busy: a rebuild step could not take it in SHARE mode within its lock_timeout. */
export class RollupLockTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the ledger's writers held payin_transaction for more than ${timeoutMs} ms`)
    this.name = "RollupLockTimeoutError"
  }
}

/**
 * Rebuilds the insights' rollups from the ledger, in batches of pay-ins by id, resumable: the
 * position is stored after each batch (payin_rollup_rebuild), so a rebuild stopped at any point
 * goes on from there. While one runs, the triggers leave the pay-ins past its position to it; each
 * batch takes payin_transaction in SHARE mode (writers wait for the batch, and none is in flight
 * while it reads), waiting at most `lockTimeoutMs` for the writers in flight, then rolls its
 * pay-ins up with the triggers' rule (payin_rollup_apply_after).
 */
export class RollupRebuild {
  constructor(private readonly db: () => Db) {}

  /** Starts over: the rollups emptied and the position at the first pay-in, in one commit. */
  async restart({ lockTimeoutMs = REBUILD_LOCK_TIMEOUT_MS } = {}): Promise<void> {
    await this.db().transaction(async (trx) => {
      await lockLedger(trx, lockTimeoutMs)
      await trx.raw("delete from payin_rollup_day")
      await trx.raw("delete from payin_rollup_pay_time")
      await trx.raw(
        `insert into payin_rollup_rebuild (id, after_id, done, started_at, finished_at) values (1, '', 0, now(), null)
         on conflict (id) do update set after_id = '', done = 0, started_at = now(), finished_at = null`
      )
    })
  }

  /**
   * Rolls up the next `size` pay-ins: how many were done (0 when the rebuild is over, or none
   * runs). Throws RollupLockTimeoutError when the writers held the ledger longer than `lockTimeoutMs`.
   */
  async batch(size: number, { lockTimeoutMs = REBUILD_LOCK_TIMEOUT_MS } = {}): Promise<number> {
    return this.db().transaction(async (trx) => {
      await lockLedger(trx, lockTimeoutMs)
      const { rows: state } = await trx.raw("select after_id from payin_rollup_rebuild where id = 1 and finished_at is null for update")
      if (!state[0]) return 0
      const { rows } = await trx.raw("select n, last_id as last from payin_rollup_apply_after(?, ?)", [state[0].after_id, size])
      const n = Number(rows[0]?.n ?? 0)
      if (n === 0) {
        await trx.raw("update payin_rollup_rebuild set finished_at = now() where id = 1")
        return 0
      }
      await trx.raw("update payin_rollup_rebuild set after_id = ?, done = done + ? where id = 1", [rows[0].last, n])
      return n
    })
  }

  /** Pay-ins left after the position (exact; an index-only count). */
  async remaining(state: Pick<RebuildState, "after_id">): Promise<number> {
    const { rows } = await this.db().raw("select count(*)::bigint as n from payin_transaction where id > ?", [state.after_id])
    return Number(rows[0]?.n ?? 0)
  }

  /**
   * Whether the rollups are exactly what the ledger's rows make (those up to a running rebuild's
   * position): recomputed with the triggers' rule and compared both ways, in one read-only
   * snapshot (REPEATABLE READ). No lock beyond what a read takes: the triggers write the rollups
   * in the transaction that writes the rows, so one snapshot holds both, and writers go on.
   * The rows that differ (none when they agree) and the pay-ins counted.
   */
  async check(): Promise<{ agree: boolean; differences: number; rows: number }> {
    return this.db().transaction(async (trx) => {
      await trx.raw("set transaction isolation level repeatable read, read only")
      const { rows: state } = await trx.raw("select after_id, finished_at from payin_rollup_rebuild where id = 1")
      const upto: string | null = state[0] && !state[0].finished_at ? state[0].after_id : null
      const { rows } = await trx.raw(
        `with kept as (select ${DAY_COLUMNS} from payin_rollup_day where (${DAY_VALUES}) is distinct from (${DAY_VALUES.replace(/\w+/g, "0")})),
           made as materialized (select ${DAY_COLUMNS} from payin_rollup_day_of_ledger(?)),
           kept_time as (select * from payin_rollup_pay_time where count <> 0),
           made_time as materialized (select * from payin_rollup_pay_time_of_ledger(?))
         select (select count(*) from (table kept except all table made) a) + (select count(*) from (table made except all table kept) b)
              + (select count(*) from (table kept_time except all table made_time) c) + (select count(*) from (table made_time except all table kept_time) d)
           as differences,
           (select count(*) from payin_transaction where ?::text is null or id <= ?) as counted`,
        [upto, upto, upto, upto]
      )
      const differences = Number(rows[0].differences)
      return { agree: differences === 0, differences, rows: Number(rows[0].counted) }
    })
  }
}

async function lockLedger(trx: Db, timeoutMs: number): Promise<void> {
  await trx.raw(`set local lock_timeout = ${Math.max(1, Math.round(timeoutMs))}`)
  await trx.raw("lock table payin_transaction in share mode").catch((error: { code?: string }) => {
    throw error?.code === "55P03" ? new RollupLockTimeoutError(timeoutMs) : error
  })
}

/** payin_rollup_day's value columns: a row whose values are all zero says nothing (an increment undone). */
const DAY_VALUES =
  "created, offered, failed, paid, paid_amount, ended_unpaid, open, disputed_unpaid, disputed, underpaid, underpaid_amount, " +
  "overpaid, overpaid_amount, stray, stray_amount, pay_again_started, pay_again_created, pay_again_paid, received, received_amount"
const DAY_COLUMNS = `day, provider_id, currency_code, bank, method, ${DAY_VALUES}`
