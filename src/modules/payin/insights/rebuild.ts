import type { Db } from "../db"
import type { RebuildState } from "./insights"

/**
 * Rebuilds the insights' rollups from the ledger, in batches of pay-ins by id, resumable: the
 * position is stored after each batch (payin_rollup_rebuild), so a rebuild stopped at any point
 * goes on from there. While one runs, the trigger leaves the pay-ins past its position to it; each
 * batch takes payin_transaction in SHARE mode (writers wait for the batch, about a tenth of a
 * second, and none is in flight while it reads), then rolls its pay-ins up with the same function
 * as the trigger (payin_rollup_apply).
 */
export class RollupRebuild {
  constructor(private readonly db: () => Db) {}

  /** Starts over: the rollups emptied and the position at the first pay-in, in one commit. */
  async restart(): Promise<void> {
    await this.db().transaction(async (trx) => {
      await trx.raw("lock table payin_transaction in share mode")
      await trx.raw("delete from payin_rollup_day")
      await trx.raw("delete from payin_rollup_pay_time")
      await trx.raw(
        `insert into payin_rollup_rebuild (id, after_id, done, started_at, finished_at) values (1, '', 0, now(), null)
         on conflict (id) do update set after_id = '', done = 0, started_at = now(), finished_at = null`
      )
    })
  }

  /** Rolls up the next `size` pay-ins: how many were done (0 when the rebuild is over, or none runs). */
  async batch(size: number): Promise<number> {
    return this.db().transaction(async (trx) => {
      await trx.raw("lock table payin_transaction in share mode")
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
   * Whether the rollups are exactly what the ledger's rows make now: recomputed from every row
   * with the same function inside a transaction that is rolled back (writers wait meanwhile),
   * compared both ways. The rows that differ (none when they agree).
   */
  async check(): Promise<{ agree: boolean; differences: number; rows: number }> {
    let result = { agree: false, differences: 0, rows: 0 }
    await this.db()
      .transaction(async (trx) => {
        await trx.raw("lock table payin_transaction in share mode")
        await trx.raw("create temp table kept_day on commit drop as select * from payin_rollup_day")
        await trx.raw("create temp table kept_time on commit drop as select * from payin_rollup_pay_time")
        await trx.raw("delete from payin_rollup_day")
        await trx.raw("delete from payin_rollup_pay_time")
        const { rows: counted } = await trx.raw("select n from payin_rollup_apply_after('', 2147483647)")
        const nonZero = (table: string, key: string) => `select * from ${table} where (${key}) is distinct from (${zeroOf(table)})`
        const { rows } = await trx.raw(
          `select (select count(*) from ((${nonZero("kept_day", DAY_VALUES)}) except (${nonZero("payin_rollup_day", DAY_VALUES)})) a)
                + (select count(*) from ((${nonZero("payin_rollup_day", DAY_VALUES)}) except (${nonZero("kept_day", DAY_VALUES)})) b)
                + (select count(*) from ((select * from kept_time where count <> 0) except (select * from payin_rollup_pay_time where count <> 0)) c)
                + (select count(*) from ((select * from payin_rollup_pay_time where count <> 0) except (select * from kept_time where count <> 0)) d)
             as differences`
        )
        const differences = Number(rows[0].differences)
        result = { agree: differences === 0, differences, rows: Number(counted[0].n) }
        throw ROLLBACK
      })
      .catch((error: unknown) => {
        if (error !== ROLLBACK) throw error
      })
    return result
  }
}

const ROLLBACK = new Error("rolled back on purpose")
/** The rollup's value columns: a row whose values are all zero says nothing (an increment undone). */
const DAY_VALUES =
  "created, offered, failed, paid, paid_amount, ended_unpaid, open, disputed, underpaid, underpaid_amount, overpaid, " +
  "overpaid_amount, stray, stray_amount, pay_again_started, pay_again_created, pay_again_paid, received, received_amount"
const zeroOf = (_table: string) => DAY_VALUES.split(", ").map(() => "0").join(", ")
