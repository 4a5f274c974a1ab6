import { EFFECT_FAILED_FLAG, type PayinFlag, type StatusEffect } from "../../../status"
import type { Db } from "../db"
import type { NotificationLog } from "../notification-log/log"
import { type Written, rowIn } from "./commit"
import { EffectFencedError } from "./errors"
import { addFlag, effectRetryDelaySeconds, history, lockRow } from "./rows"
import type { LedgerNotice, LedgerRow } from "./types"

export type EffectDeps = {
  effectRetryLimit: () => Promise<number>
  notifications: NotificationLog
}

export type ClaimedRow = LedgerRow & { collection_payins: number }

export type EffectAnnouncement = Extract<LedgerNotice, { kind: "captured" | "expired" }>

export type EffectOutcomeRecord = {
  ended?: string
  flag?: { flag: PayinFlag; details: Record<string, unknown> }
  captured?: boolean
  order_id?: string | null
  cart_id?: string | null
  note?: string
  announce?: { notice: EffectAnnouncement; notify: boolean }
  deferUntil?: Date
  payAgainUntil?: Date
  payAgainStarted?: boolean
}

export class LedgerEffects {
  constructor(
    private readonly db: () => Db,
    private readonly deps: EffectDeps,
    private readonly commit: <T extends Written>(work: (trx: Db) => Promise<T>) => Promise<T>,
    /** A write of one statement, with its events (writeAndEmit). */
    private readonly once: <T extends Written>(work: (db: Db) => Promise<T>) => Promise<T>
  ) {}

  async claim(ledgerId: string, { force = false }: { force?: boolean } = {}): Promise<ClaimedRow | null> {
    const { rows } = await this.db().raw(
      `update payin_transaction t set effect_fence = t.effect_fence + 1
       where t.id = ? and t.deleted_at is null and t.effect_pending is not null
         and (?::boolean or t.next_effect_at is null or t.next_effect_at <= now())
       returning t.*, (select count(*)::int from payin_transaction o
         where o.payment_collection_id = t.payment_collection_id and o.deleted_at is null) as collection_payins`,
      [ledgerId, force]
    )
    return rows[0] ?? null
  }

  async assertFence(ledgerId: string, fence: number): Promise<void> {
    const { rows } = await this.db().raw("select effect_fence from payin_transaction where id = ?", [ledgerId])
    if (!rows[0] || Number(rows[0].effect_fence) !== Number(fence)) {
      throw new EffectFencedError(ledgerId, fence)
    }
  }

  async reopenForLatePayment(ledgerId: string, fence: number, note: string): Promise<void> {
    await this.db().transaction(async (trx) => {
      const row = await lockRow(trx, ledgerId)
      if (Number(row.effect_fence) !== Number(fence)) throw new EffectFencedError(ledgerId, fence)
      if (!row.store_canceled_at || !row.paid_at || row.captured_at) return
      await trx.raw("update payin_transaction set store_canceled_at = null, updated_at = now() where id = ?", [ledgerId])
      await history(trx, row, row.status, row.status, "store", note)
    })
  }

  async settle(ledgerId: string, effect: StatusEffect, outcome: EffectOutcomeRecord, fence?: number): Promise<{ flagged: boolean }> {
    // nothing to write beside the row (a capture, no notification owed): its one statement needs no transaction
    const alone = !outcome.ended && !outcome.flag && !outcome.note && !(outcome.announce?.notify && outcome.announce.notice.order_id)
    const write = <T extends Written>(work: (trx: Db) => Promise<T>) => (alone ? this.once(work) : this.commit(work))
    const { flagged } = await write(async (trx) => {
      const ended = Boolean(outcome.ended)
      // cleared when it is this effect (or any cancel_order once the pay-in ended), unless deferred
      const clears = `(not ? and (effect_pending = ? or (? and effect_pending = 'cancel_order')))`
      const deferred = outcome.deferUntil ?? null
      // one statement locks the row, checks the token and writes the outcome (`was_*`: before it)
      const { rows: settled } = await trx.raw(
        `with was as (
           select id as was_id, effect_fence as was_fence, store_canceled_at as was_store_canceled_at
           from payin_transaction where id = ? and deleted_at is null for update
         )
         update payin_transaction set
           effect_pending = case when ${clears} then null else effect_pending end,
           effect_attempts = case when ${clears} then 0 else effect_attempts end,
           next_effect_at = case when ${clears} then null when ?::timestamptz is not null then ?::timestamptz else next_effect_at end,
           pay_again_until = coalesce(pay_again_until, ?::timestamptz), pay_again_started = pay_again_started or ?,
           captured_at = case when ? then coalesce(captured_at, now()) else captured_at end,
           store_canceled_at = case when ? then coalesce(store_canceled_at, now()) else store_canceled_at end,
           order_id = coalesce(order_id, ?), cart_id = coalesce(cart_id, ?), updated_at = now()
         from was where id = was_id and (?::bigint is null or was_fence = ?::bigint)
         returning payin_transaction.*, was_store_canceled_at`,
        [
          ledgerId,
          ...[0, 1, 2].flatMap(() => [Boolean(deferred), effect, ended]),
          deferred,
          deferred,
          outcome.payAgainUntil ?? deferred,
          Boolean(outcome.payAgainStarted),
          Boolean(outcome.captured),
          ended,
          outcome.order_id ?? null,
          outcome.cart_id ?? null,
          fence ?? null,
          fence ?? null,
        ]
      )
      const row = settled[0] as (LedgerRow & { was_store_canceled_at: Date | null }) | undefined
      if (!row) {
        await lockRow(trx, ledgerId) // not found: thrown
        throw new EffectFencedError(ledgerId, fence!)
      }
      if (outcome.ended && !row.was_store_canceled_at) await history(trx, row, row.status, row.status, "store", outcome.ended)
      const notices = outcome.flag ? await addFlag(trx, row, outcome.flag.flag, outcome.flag.details) : []
      const flagged = notices.length > 0
      if (outcome.note) await history(trx, row, row.status, row.status, "store", outcome.note)
      const announced = outcome.announce?.notice
      if (announced) {
        // owed before the event goes out: if the event is lost, the retry job still finds it
        if (outcome.announce!.notify && announced.order_id) {
          const kind = announced.kind === "captured" ? "paid" : "expired"
          await this.deps.notifications.due(announced.order_id, kind, row.id, `payin.${announced.kind}`, trx)
        }
        notices.push(announced)
      }
      // a new flag changed the row after the update
      return { row: notices.length ? (flagged ? await rowIn(trx, ledgerId) : row) : null, notices, flagged }
    })
    return { flagged }
  }

  async failed(ledgerId: string, effect: StatusEffect, error: string, fence?: number): Promise<void> {
    const limit = await this.deps.effectRetryLimit()
    await this.commit(async (trx) => {
      const row = await lockRow(trx, ledgerId)
      const nothing = { row: null, notices: [] }
      if (row.effect_pending !== effect) return nothing
      if (fence !== undefined && Number(row.effect_fence) !== Number(fence)) return nothing
      const attempts = (row.effect_attempts ?? 0) + 1
      await trx.raw(
        `update payin_transaction set effect_attempts = ?, last_error = ?,
           next_effect_at = now() + (? * interval '1 second'), updated_at = now()
         where id = ?`,
        [attempts, error.slice(0, 2000), effectRetryDelaySeconds(attempts), ledgerId]
      )
      if (attempts < limit) return nothing
      const notices = await addFlag(trx, row, EFFECT_FAILED_FLAG[effect], { attempts, error })
      return { row: notices.length ? await rowIn(trx, ledgerId) : null, notices }
    })
  }
}
