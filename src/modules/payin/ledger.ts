import type { InferTypeOf } from "@medusajs/framework/types"
import { MedusaError, generateEntityId } from "@medusajs/framework/utils"
import type { Transaction } from "../../client/schemas"
import {
  type LedgerStatus,
  type PayinFlag,
  type StatusEffect,
  type TransitionResult,
  effectOf,
  isDisputeStatus,
  nextStatus,
  statusesMovingTo,
  LEDGER_ONLY_STATUSES,
} from "../../status"
import type { Db } from "./db"
import { compareReceived } from "./money"
import { FLAG_KINDS_SQL, addFlag, effectRetryDelaySeconds, history, lockRow } from "./ledger-rows"
import type { PayinTransaction } from "./models"

/** A ledger row as the module stores it (inferred from the model; `amount` as numeric text from SQL). */
export type LedgerRow = Omit<InferTypeOf<typeof PayinTransaction>, "history" | "amount" | "raw_amount"> & {
  amount: string | number
  raw_amount?: { value?: string } | null
}

export type StatusSource = "create" | "webhook" | "lookup" | "store" | "admin" | "authorize"
export type Effect = StatusEffect

/** What a status change asks the merchant's subscribers to know (emitted after the commit). */
export type LedgerNotice =
  | { kind: "status"; from: LedgerStatus; to: LedgerStatus }
  | { kind: "flag"; flag: PayinFlag; details: Record<string, unknown> }
  /** The money path had Medusa capture the pay-in's payment for its order. */
  | { kind: "captured"; order_id: string }
  /** The payment window ended unpaid and the store ended the pay-in (and canceled its order, when set to). */
  | { kind: "expired"; order_id: string | null; order_canceled: boolean }

export type RecordResult = { row: LedgerRow; transition: TransitionResult; notices: LedgerNotice[] }

/** A callback or lookup names a service transaction that another merchant account's row holds. */
export class ForeignPayinError extends MedusaError {
  constructor(message: string) {
    super(MedusaError.Types.NOT_ALLOWED, message, "payin_foreign")
    this.name = "ForeignPayinError"
  }
}

/**
 * A status names another service transaction than the one the ledger row holds (the row was
 * claimed by another transaction since it was looked up). Not transient: the apply path resolves
 * the row again (ends as another row, or a new one flagged `unknown_payin`).
 */
export class ServiceIdMismatchError extends MedusaError {
  constructor(
    message: string,
    readonly ledgerId: string,
    readonly serviceId: string
  ) {
    super(MedusaError.Types.CONFLICT, message, "payin_service_id_mismatch")
    this.name = "ServiceIdMismatchError"
  }
}

/**
 * The runner of a pay-in's effect no longer holds it: another runner claimed the effect since
 * (its fencing token on the row moved on). It must stop and record nothing as done.
 */
export class EffectFencedError extends Error {
  constructor(ledgerId: string, fence: number) {
    super(`The effect of ${ledgerId} was claimed by another runner (fence ${fence} is stale)`)
    this.name = "EffectFencedError"
  }
}

/**
 * The ledger: one row per pay-in and its status history. The one writer of a pay-in's status:
 * every change goes through the transition table (src/status.ts) under a row lock, leaves a
 * history row, and records in the same commit the Medusa effect it asks for (`effect_pending`),
 * so a crash between the status and its effect loses nothing: reconciliation finds the row.
 */
export class Ledger {
  constructor(private readonly db: () => Db) {}

  async get(id: string, trx: Db = this.db()): Promise<LedgerRow | null> {
    const { rows } = await trx.raw("select * from payin_transaction where id = ? and deleted_at is null", [id])
    return rows[0] ?? null
  }

  /** The row of a Medusa payment session (session ids are unique in the store). */
  async findBy(column: "session_id", value: string): Promise<LedgerRow | null> {
    const { rows } = await this.db().raw(`select * from payin_transaction where ${column} = ? and deleted_at is null`, [value])
    return rows[0] ?? null
  }

  /**
   * The rows holding a service transaction id: one per merchant account at most (two accounts of
   * two services may issue the same id; an id is unique per provider instance).
   */
  async withServiceId(serviceId: string): Promise<LedgerRow[]> {
    const { rows } = await this.db().raw(
      "select * from payin_transaction where service_id = ? and deleted_at is null order by created_at, id",
      [serviceId]
    )
    return rows
  }

  /** The rows of these payment collections (newest first). */
  async ofCollections(collectionIds: string[]): Promise<LedgerRow[]> {
    if (!collectionIds.length) return []
    const { rows } = await this.db().raw(
      `select * from payin_transaction where payment_collection_id = any(?::text[]) and deleted_at is null
       order by created_at desc, id desc limit 200`,
      [collectionIds]
    )
    return rows
  }

  /**
   * Opens the row of a payment session before its pay-in is requested (checkout's hot path: one
   * statement). Returns the existing row when the session already has one.
   */
  async open(fields: {
    provider_id: string
    session_id: string
    amount: string
    currency_code: string
    method: string | null
    bank: string | null
    payment_collection_id: string | null
  }): Promise<{ id: string; status: LedgerStatus }> {
    const inserted = await this.db().raw(
      `insert into payin_transaction
         (id, provider_id, session_id, status, amount, raw_amount, currency_code, method, bank, payment_collection_id)
       values (?, ?, ?, 'creating', ?, ?::jsonb, ?, ?, ?, ?)
       on conflict (session_id) where session_id is not null and deleted_at is null do nothing
       returning id, status`,
      [
        generateEntityId(undefined, "payintx"),
        fields.provider_id,
        fields.session_id,
        fields.amount,
        JSON.stringify({ value: fields.amount, precision: 20 }),
        fields.currency_code,
        fields.method,
        fields.bank,
        fields.payment_collection_id,
      ]
    )
    if (inserted.rows.length) {
      return inserted.rows[0]
    }
    const existing = await this.db().raw("select id, status from payin_transaction where session_id = ? and deleted_at is null", [
      fields.session_id,
    ])
    return existing.rows[0]
  }

  /**
   * Records the service's answer to the creation request (hot path: one statement that moves the
   * row from a ledger-only status, as the transition table allows, and writes the history row).
   * When something else already moved the row (a webhook overtook the answer), the general path
   * applies it.
   */
  async recordCreated(ledgerId: string, tx: Transaction, expiresAt: Date): Promise<RecordResult | null> {
    const from = statusesMovingTo(tx.status, LEDGER_ONLY_STATUSES)
    const result = await this.db().raw(
      `with moved as (
         update payin_transaction set
           status = ?, service_id = ?, fiat_amount = ?, assigned_amount = ?, fiat_currency = ?, bank = ?,
           requisite = ?::jsonb, service_data = ?::jsonb, payment_page_url = ?, expires_at = ?,
           status_changed_at = now(), last_error = null, updated_at = now()
         where id = ? and status = any(?::text[]) and deleted_at is null
         returning id
       )
       insert into payin_status_change (id, transaction_id, from_status, to_status, source, service_data)
       -- the sub-select sees the row as it was before this statement
       select ?, id, (select status from payin_transaction where id = ?), ?, 'create', ?::jsonb from moved
       returning id`,
      [
        tx.status,
        tx.id,
        tx.fiatAmount,
        tx.fiatAmount,
        tx.fiatCurrency,
        tx.bank ?? null,
        JSON.stringify(tx.requisite ?? null),
        JSON.stringify(tx),
        tx.externalPaymentPageUrl ?? null,
        expiresAt,
        ledgerId,
        from,
        generateEntityId(undefined, "payinsc"),
        ledgerId,
        tx.status,
        JSON.stringify(tx),
      ]
    )
    if (result.rows.length) {
      return null
    }
    const recorded = await this.record(ledgerId, tx, "create")
    await this.db().raw(
      "update payin_transaction set expires_at = coalesce(expires_at, ?), assigned_amount = coalesce(assigned_amount, ?) where id = ?",
      [expiresAt, tx.fiatAmount, ledgerId]
    )
    return recorded
  }

  /** The request certainly created nothing (or created something refused): `failed` through the table. */
  async recordCreationFailure(ledgerId: string, message: string): Promise<void> {
    await this.db().transaction(async (trx) => {
      const row = await lockRow(trx, ledgerId)
      await trx.raw("update payin_transaction set last_error = ?, updated_at = now() where id = ?", [message.slice(0, 2000), ledgerId])
      await this.move(trx, row, "failed", "create", null, message.slice(0, 500))
    })
  }

  /**
   * Applies what the service says about a pay-in to its row: the status moves only as the table
   * allows; the service's data is kept only when the status moved or repeated (a refused or older
   * status changes nothing); money received is compared with the assigned amount; a dispute after
   * payment is flagged; the Medusa effect the new status asks for is recorded as pending.
   * `accepts(row)` decides whether the caller may touch this row at all (instances are accounts).
   */
  async record(
    ledgerId: string,
    tx: Transaction,
    source: StatusSource,
    accepts: (row: LedgerRow) => boolean = () => true
  ): Promise<RecordResult> {
    return this.db().transaction(async (trx) => {
      const current = await lockRow(trx, ledgerId)
      if (!accepts(current)) {
        throw new ForeignPayinError(`Pay-in ${current.id} belongs to ${current.provider_id}, another merchant account`)
      }
      if (current.service_id && current.service_id !== tx.id) {
        throw new ServiceIdMismatchError(
          `Pay-in ${current.id} belongs to service transaction ${current.service_id}, not ${tx.id}`,
          current.id,
          current.service_id
        )
      }
      const transition = nextStatus(current.status, tx.status, { paid: Boolean(current.paid_at) })
      const notices: LedgerNotice[] = []
      if (transition.changed || transition.reason === "same") {
        await trx.raw(
          `update payin_transaction set service_id = ?, service_data = ?::jsonb, fiat_amount = ?, fiat_currency = ?,
             bank = ?, requisite = ?::jsonb, payment_page_url = coalesce(?, payment_page_url),
             assigned_amount = coalesce(assigned_amount, ?), updated_at = now()
           where id = ?`,
          [
            tx.id,
            JSON.stringify(tx),
            tx.fiatAmount,
            tx.fiatCurrency,
            tx.bank ?? null,
            JSON.stringify(tx.requisite ?? null),
            tx.externalPaymentPageUrl ?? null,
            // the first answer seen carries the assigned amount, unless it already moved on
            current.status === "creating" && tx.status === "active" ? tx.fiatAmount : null,
            ledgerId,
          ]
        )
      }
      if (transition.changed) {
        await this.move(trx, current, transition.to, source, tx)
        notices.push({ kind: "status", from: transition.from, to: transition.to })
        const row = (await this.get(ledgerId, trx))!
        if (transition.to === "closed" || (transition.to === "re_calculation" && current.paid_at)) {
          const money = compareReceived(row, tx)
          if (money) notices.push(...(await addFlag(trx, row, money.flag, money.details)))
        }
        if (isDisputeStatus(transition.to) && current.paid_at && !isDisputeStatus(current.status)) {
          notices.push(
            ...(await addFlag(trx, row, "dispute_after_payment", {
              status: transition.to,
              captured: Boolean(row.captured_at),
              fiat_amount: tx.fiatAmount,
            }))
          )
        }
      }
      return { row: (await this.get(ledgerId, trx))!, transition, notices }
    })
  }

  /** Adds a flag once (with a history note). Returns the notice to emit, or nothing when it was there. */
  async flag(ledgerId: string, flag: PayinFlag, details: Record<string, unknown>): Promise<LedgerNotice[]> {
    return this.db().transaction(async (trx) => addFlag(trx, await lockRow(trx, ledgerId), flag, details))
  }

  /** Links the row to its cart and order (first values win; an order id replaces none only). */
  async link(ledgerId: string, ids: { order_id?: string | null; cart_id?: string | null }): Promise<void> {
    await this.db().raw(
      `update payin_transaction set order_id = coalesce(order_id, ?), cart_id = coalesce(cart_id, ?), updated_at = now()
       where id = ? and ((order_id is null and ?::text is not null) or (cart_id is null and ?::text is not null))`,
      [ids.order_id ?? null, ids.cart_id ?? null, ledgerId, ids.order_id ?? null, ids.cart_id ?? null]
    )
  }

  /** Medusa deleted the session (the cart changed): a payment into this pay-in is stray money. */
  async markSessionDeleted(ledgerId: string): Promise<void> {
    await this.note(ledgerId, "session_deleted_at", "payment session deleted by Medusa")
  }

  /**
   * Medusa deleted payment session `sessionId`: recorded only while the pay-in is still attached
   * to it (a pay-in re-attached to a newer session stays that session's, whichever of the two ran
   * first; the row lock orders them).
   */
  async markSessionDeletedIfCurrent(ledgerId: string, sessionId: string): Promise<boolean> {
    return this.db().transaction(async (trx) => {
      const row = await lockRow(trx, ledgerId)
      if (row.session_id !== sessionId) return false
      if (row.session_deleted_at) return true
      await trx.raw("update payin_transaction set session_deleted_at = now(), updated_at = now() where id = ?", [ledgerId])
      await history(trx, row, row.status, row.status, "store", "payment session deleted by Medusa")
      return true
    })
  }

  /**
   * Moves a live pay-in to the new payment session `to` (the money path finds its row by service
   * id and by session id: a payment into it is then captured for `to`, not flagged stray) and
   * clears `session_deleted_at` (Medusa deletes the old session while it creates the new one).
   * Only when the row is still attached to the session it was read with (`from`) and
   * `stillReusable` holds under the row lock; null otherwise.
   */
  async reattachSession(
    ledgerId: string,
    from: string | null,
    to: string,
    stillReusable: (row: LedgerRow) => boolean
  ): Promise<LedgerRow | null> {
    return this.db().transaction(async (trx) => {
      const row = await lockRow(trx, ledgerId)
      if ((row.session_id ?? null) !== from || !stillReusable(row)) return null
      const { rows } = await trx.raw(
        "update payin_transaction set session_id = ?, session_deleted_at = null, updated_at = now() where id = ? returning *",
        [to, ledgerId]
      )
      await history(trx, row, row.status, row.status, "store", `reused for payment session ${to} (was ${from ?? "none"})`)
      return rows[0] ?? null
    })
  }

  /** The store ended the pay-in (expired unpaid, order canceled): a late payment is flagged, never attached. */
  async markEndedByStore(ledgerId: string, note: string, ids: { order_id?: string | null; cart_id?: string | null } = {}) {
    await this.link(ledgerId, ids)
    await this.note(ledgerId, "store_canceled_at", note)
  }

  /**
   * Claims the pending effect for one run: moves the row's fencing token (`effect_fence`) on and
   * answers the row with it, or null when no effect is pending or it is not due yet
   * (`next_effect_at`; `force` ignores it). Taken under the per-pay-in lock; a runner whose
   * token is no longer the row's was overtaken and must stop (effectDone/effectFailed refuse it).
   */
  async claimEffect(ledgerId: string, { force = false }: { force?: boolean } = {}): Promise<LedgerRow | null> {
    const { rows } = await this.db().raw(
      `update payin_transaction set effect_fence = effect_fence + 1
       where id = ? and deleted_at is null and effect_pending is not null
         and (?::boolean or next_effect_at is null or next_effect_at <= now())
       returning *`,
      [ledgerId, force]
    )
    return rows[0] ?? null
  }

  /** Throws EffectFencedError when another runner claimed the row's effect after the one holding `fence`. */
  async assertFence(ledgerId: string, fence: number): Promise<void> {
    const { rows } = await this.db().raw("select effect_fence from payin_transaction where id = ?", [ledgerId])
    if (!rows[0] || Number(rows[0].effect_fence) !== Number(fence)) {
      throw new EffectFencedError(ledgerId, fence)
    }
  }

  /**
   * The pending effect happened (or is not needed): cleared, with what it did. With `fence` (the
   * claim's token) it is refused with EffectFencedError when another runner claimed it since.
   */
  async effectDone(
    ledgerId: string,
    effect: Effect,
    done: { captured?: boolean; ended?: boolean; order_id?: string | null; cart_id?: string | null; note?: string },
    fence?: number
  ): Promise<void> {
    await this.db().transaction(async (trx) => {
      const row = await lockRow(trx, ledgerId)
      if (fence !== undefined && Number(row.effect_fence) !== Number(fence)) {
        throw new EffectFencedError(ledgerId, fence)
      }
      await trx.raw(
        `update payin_transaction set
           effect_pending = case when effect_pending = ? then null else effect_pending end,
           effect_attempts = case when effect_pending = ? then 0 else effect_attempts end,
           next_effect_at = case when effect_pending = ? then null else next_effect_at end,
           captured_at = case when ? then coalesce(captured_at, now()) else captured_at end,
           store_canceled_at = case when ? then coalesce(store_canceled_at, now()) else store_canceled_at end,
           order_id = coalesce(order_id, ?), cart_id = coalesce(cart_id, ?), updated_at = now()
         where id = ?`,
        [effect, effect, effect, Boolean(done.captured), Boolean(done.ended), done.order_id ?? null, done.cart_id ?? null, ledgerId]
      )
      if (done.note) await history(trx, row, row.status, row.status, "store", done.note)
    })
  }

  /**
   * The pending effect failed once more: the next attempt is due after a capped exponential
   * backoff with jitter (`next_effect_at`, written with the attempt). After `limit` attempts it is
   * flagged for the merchant (capture_failed / order_cancel_failed); it stays pending and
   * reconciliation keeps retrying it when due ("Reconcile now" at once). Nothing is counted for a
   * runner another one overtook (`fence`).
   */
  async effectFailed(ledgerId: string, effect: Effect, error: string, limit: number, fence?: number): Promise<LedgerNotice[]> {
    return this.db().transaction(async (trx) => {
      const row = await lockRow(trx, ledgerId)
      if (row.effect_pending !== effect) return []
      if (fence !== undefined && Number(row.effect_fence) !== Number(fence)) return []
      const attempts = (row.effect_attempts ?? 0) + 1
      await trx.raw(
        `update payin_transaction set effect_attempts = ?, last_error = ?,
           next_effect_at = now() + (? * interval '1 second'), updated_at = now()
         where id = ?`,
        [attempts, error.slice(0, 2000), effectRetryDelaySeconds(attempts), ledgerId]
      )
      if (attempts < limit) return []
      return addFlag(trx, row, effect === "capture" ? "capture_failed" : "order_cancel_failed", { attempts, error })
    })
  }

  async recordRefund(ledgerId: string, refund: Record<string, unknown>): Promise<void> {
    await this.db().transaction(async (trx) => {
      const row = await lockRow(trx, ledgerId)
      await trx.raw(
        "update payin_transaction set refunds = coalesce(refunds, '[]'::jsonb) || ?::jsonb, updated_at = now() where id = ?",
        [JSON.stringify([refund]), ledgerId]
      )
      await history(trx, row, row.status, row.status, "store", `manual refund of ${refund.amount} recorded`)
    })
  }

  /** A pay-in unknown to the store (no row of this instance): kept, flagged (with `details`), so it is not lost. */
  async createUnknown(providerId: string, tx: Transaction, details: Record<string, unknown> = {}): Promise<LedgerRow> {
    const externalId = tx.extra?.externalTransactionId ?? null
    const flags = JSON.stringify({ unknown_payin: { at: new Date().toISOString(), external_id: externalId, ...details } })
    const { rows } = await this.db().raw(
      `insert into payin_transaction (id, provider_id, status, amount, raw_amount, currency_code, flags, flag_kinds)
       values (?, ?, 'creating', ?, ?::jsonb, ?, ?::jsonb, ${FLAG_KINDS_SQL("?::jsonb")})
       returning *`,
      [
        generateEntityId(undefined, "payintx"),
        providerId,
        tx.fiatAmount,
        JSON.stringify({ value: tx.fiatAmount, precision: 20 }),
        tx.fiatCurrency.toLowerCase(),
        flags,
        flags,
      ]
    )
    return rows[0]
  }

  // -------------------------------------------------------------------------------------------

  /** The one status write: only through the table, always with a history row and its pending effect. */
  private async move(
    trx: Db,
    row: LedgerRow,
    to: LedgerStatus,
    source: StatusSource,
    tx: Transaction | null,
    note: string | null = null
  ): Promise<void> {
    const transition = nextStatus(row.status, to, { paid: Boolean(row.paid_at) })
    if (!transition.changed) return
    const effect = effectOf(to, { paid: Boolean(row.paid_at), captured: Boolean(row.captured_at), ended: Boolean(row.store_canceled_at) })
    await trx.raw(
      `update payin_transaction set status = ?, status_changed_at = now(),
         paid_at = case when ? = 'closed' then coalesce(paid_at, now()) else paid_at end,
         recalculated_at = case when ? = 're_calculation' then now() else recalculated_at end,
         effect_pending = coalesce(?, effect_pending), effect_attempts = case when ?::text is null then effect_attempts else 0 end,
         next_effect_at = case when ?::text is null then next_effect_at else null end,
         updated_at = now()
       where id = ?`,
      [to, to, to, effect, effect, effect, row.id]
    )
    await history(trx, row, row.status, to, source, note, tx)
  }

  private async note(ledgerId: string, column: "session_deleted_at" | "store_canceled_at", note: string): Promise<void> {
    await this.db().transaction(async (trx) => {
      const row = await lockRow(trx, ledgerId)
      if (row[column]) return
      await trx.raw(
        `update payin_transaction set ${column} = now(),
           effect_pending = case when ? and effect_pending = 'cancel_order' then null else effect_pending end,
           next_effect_at = case when ? and effect_pending = 'cancel_order' then null else next_effect_at end,
           updated_at = now()
         where id = ?`,
        [column === "store_canceled_at", column === "store_canceled_at", ledgerId]
      )
      await history(trx, row, row.status, row.status, "store", note)
    })
  }
}
