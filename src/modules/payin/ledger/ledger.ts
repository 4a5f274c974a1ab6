import { generateEntityId } from "@medusajs/framework/utils"
import type { Transaction } from "../../../client/schemas"
import { type LedgerStatus, type PayinFlag, LEDGER_ONLY_STATUSES, nextStatus, statusesMovingTo } from "../../../status"
import type { Db } from "../db"
import { commitAndEmit, emitWritten, rowIn, writeAndEmit, type Written } from "./commit"
import { type ClaimedRow, type EffectDeps, LedgerEffects } from "./effects"
import { EffectFencedError, ForeignPayinError, ServiceIdMismatchError } from "./errors"
import type { LedgerEventSink } from "./events"
import { CREDITED, FLAG_KINDS_SQL, addFlag, assignedBy, changeDetails, closedAgainUnseen, effectOfMove, flagsOfMove, history, lockRow, recordUnseenDispute, moveStatus, serviceColumns, statusColumns } from "./rows"
import type { LedgerNotice, LedgerRow, RecordResult, SeenRow, StatusSource } from "./types"

export type LedgerDeps = EffectDeps & {
  emit: LedgerEventSink
}

export class Ledger {
  readonly effects: LedgerEffects

  constructor(
    private readonly db: () => Db,
    private readonly deps: LedgerDeps
  ) {
    if (typeof deps?.emit !== "function") throw new TypeError("The ledger needs an event sink (deps.emit)")
    this.effects = new LedgerEffects(
      db,
      deps,
      (work) => this.commit(work),
      (work) => writeAndEmit(this.db, this.deps.emit, work)
    )
  }

  private commit<T extends Written>(work: (trx: Db) => Promise<T>): Promise<T> {
    return commitAndEmit(this.db, this.deps.emit, work)
  }

  async get(id: string, trx: Db = this.db()): Promise<LedgerRow | null> {
    const { rows } = await trx.raw("select * from payin_transaction where id = ? and deleted_at is null", [id])
    return rows[0] ?? null
  }

  async findBy(column: "session_id", value: string): Promise<LedgerRow | null> {
    const { rows } = await this.db().raw(`select * from payin_transaction where ${column} = ? and deleted_at is null`, [value])
    return rows[0] ?? null
  }

  /** Several rows: a service id is unique per provider instance only, and two accounts may issue the same one. With their version: recordSeenStatus. */
  async withServiceId(serviceId: string): Promise<SeenRow[]> {
    const { rows } = await this.db().raw(
      "select *, xmin::text as row_version from payin_transaction where service_id = ? and deleted_at is null order by created_at, id",
      [serviceId]
    )
    return rows
  }

  async ofCollections(collectionIds: string[]): Promise<LedgerRow[]> {
    if (!collectionIds.length) return []
    const { rows } = await this.db().raw(
      `select * from payin_transaction where payment_collection_id = any(?::text[]) and deleted_at is null
       order by created_at desc, id desc limit 200`,
      [collectionIds]
    )
    return rows
  }

  async open(fields: {
    provider_id: string
    session_id: string
    amount: string
    currency_code: string
    method: string | null
    bank: string | null
    payment_collection_id: string | null
    return_urls?: { success_url?: string; failure_url?: string } | null
  }): Promise<{ id: string; status: LedgerStatus }> {
    const inserted = await this.db().raw(
      `insert into payin_transaction
         (id, provider_id, session_id, status, amount, raw_amount, currency_code, method, bank, payment_collection_id, return_urls)
       values (?, ?, ?, 'creating', ?, ?::jsonb, ?, ?, ?, ?, ?::jsonb)
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
        fields.return_urls && Object.keys(fields.return_urls).length ? JSON.stringify(fields.return_urls) : null,
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

  /** Checkout's hot path is one statement; `closed` (a money check) or a row a webhook already moved takes the general path. */
  async recordCreated(ledgerId: string, tx: Transaction, expiresAt: Date): Promise<void> {
    if (tx.status !== "closed") {
      const moved = await this.movedByCreation(ledgerId, tx, expiresAt)
      if (moved) {
        await emitWritten(this.deps.emit, { row: moved, notices: [{ kind: "status", from: moved.from_status, to: tx.status }] })
        return
      }
    }
    await this.commit(async (trx) => {
      const recorded = await this.applyStatus(trx, ledgerId, tx, "create", () => true)
      await trx.raw(
        "update payin_transaction set expires_at = coalesce(expires_at, ?), assigned_amount = coalesce(assigned_amount, ?) where id = ?",
        [expiresAt, tx.fiatAmount, ledgerId]
      )
      return { ...recorded, row: recorded.notices.length ? await rowIn(trx, ledgerId) : recorded.row }
    })
  }

  private async movedByCreation(ledgerId: string, tx: Transaction, expiresAt: Date): Promise<(LedgerRow & { from_status: LedgerStatus }) | null> {
    // never paid, captured or ended (the where clause): the effect the move asks for is the table's for a fresh row
    const columns = statusColumns(tx.status, effectOfMove({ paid_at: null, captured_at: null, store_canceled_at: null }, tx.status))
    const result = await this.db().raw(
      `with moved as (
         update payin_transaction set ${columns.sql},
           service_id = ?, fiat_amount = ?, assigned_amount = ?, fiat_currency = ?, bank = ?,
           requisite = ?::jsonb, service_data = ?::jsonb, payment_page_url = ?, expires_at = ?, ${CREDITED.sql},
           last_error = null, updated_at = now()
         where id = ? and status = any(?::text[]) and deleted_at is null
           and paid_at is null and captured_at is null and store_canceled_at is null
         returning *
       ),
       -- the sub-select sees the row as it was before this statement
       before as (select status from payin_transaction where id = ?),
       noted as (
         insert into payin_status_change (transaction_id, from_status, to_status, source, service_data)
         select moved.id, before.status, ?, 'create', ?::jsonb from moved, before
       )
       select moved.*, before.status as from_status from moved, before`,
      [
        ...columns.bindings,
        ...[tx.id, tx.fiatAmount, tx.fiatAmount, tx.fiatCurrency],
        tx.bank ?? null,
        JSON.stringify(tx.requisite ?? null),
        JSON.stringify(tx),
        tx.externalPaymentPageUrl ?? null,
        expiresAt,
        ...CREDITED.bindings(tx),
        ledgerId,
        statusesMovingTo(tx.status, LEDGER_ONLY_STATUSES),
        ledgerId,
        tx.status,
        // a row moving from a ledger-only status holds no amount yet
        changeDetails({ fiat_amount: null }, tx.status, tx),
      ]
    )
    return result.rows[0] ?? null
  }

  async recordCreationFailure(ledgerId: string, message: string): Promise<void> {
    await this.commit(async (trx) => {
      const row = await lockRow(trx, ledgerId)
      await trx.raw("update payin_transaction set last_error = ?, updated_at = now() where id = ?", [message.slice(0, 2000), ledgerId])
      const moved = await moveStatus(trx, row, "failed", "create", null, message.slice(0, 500))
      const notices: LedgerNotice[] = moved ? [{ kind: "status", from: row.status, to: "failed" }] : []
      return { row: moved ?? row, notices }
    })
  }

  async recordStatus(
    ledgerId: string,
    tx: Transaction,
    source: StatusSource,
    accepts: (row: LedgerRow) => boolean = () => true
  ): Promise<RecordResult> {
    return this.commit((trx) => this.applyStatus(trx, ledgerId, tx, source, accepts))
  }

  private async applyStatus(
    trx: Db,
    ledgerId: string,
    tx: Transaction,
    source: StatusSource,
    accepts: (row: LedgerRow) => boolean
  ): Promise<RecordResult> {
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
    const serviceFields = serviceColumns(current, tx)
    if (!transition.changed) {
      if (transition.reason !== "same") return { row: current, transition, notices }
      const { rows } = await trx.raw(`update payin_transaction set ${serviceFields.sql}, updated_at = now() where id = ? returning *`, [
        ...serviceFields.bindings,
        ledgerId,
      ])
      if (!closedAgainUnseen(current, tx)) return { row: rows[0], transition, notices }
      notices.push(...(await recordUnseenDispute(trx, current, rows[0], source, tx)))
      return { row: await rowIn(trx, ledgerId), transition, notices }
    }
    const row = (await moveStatus(trx, current, transition.to, source, tx, null, serviceFields))!
    notices.push({ kind: "status", from: transition.from, to: transition.to })
    for (const { flag, details } of flagsOfMove(current, row, transition.to, tx)) notices.push(...(await addFlag(trx, row, flag, details)))
    // a new flag changed the row after the move
    const flagged = notices.some((n) => n.kind === "flag")
    return { row: flagged ? await rowIn(trx, ledgerId) : row, transition, notices }
  }

  /**
   * A booking's status move in one statement: the move of `seen` (as withServiceId read it, with its
   * version), its history row and, when the move asks for an effect, that effect's claim (the
   * fencing token, as effects.claim) — provided nothing wrote the row since it was read and the
   * move raises no flag. Otherwise recordStatus (row lock, checks, flags) and nothing claimed.
   */
  async recordSeenStatus(
    seen: SeenRow,
    tx: Transaction,
    source: StatusSource,
    accepts: (row: LedgerRow) => boolean
  ): Promise<RecordResult & { claimed: ClaimedRow | null }> {
    const transition = nextStatus(seen.status, tx.status, { paid: Boolean(seen.paid_at) })
    const serviceFields = serviceColumns(seen, tx)
    // the columns compareReceived reads, as the move leaves them (serviceColumns)
    const after = { ...seen, assigned_amount: seen.assigned_amount ?? assignedBy(seen, tx) }
    const fast =
      seen.row_version &&
      accepts(seen) &&
      (!seen.service_id || seen.service_id === tx.id) &&
      transition.changed &&
      !flagsOfMove(seen, after, transition.to, tx).length
    if (fast) {
      const effect = effectOfMove(seen, transition.to)
      const columns = statusColumns(transition.to, effect)
      const moved = await writeAndEmit(this.db, this.deps.emit, async (db) => {
        const { rows } = await db.raw(
          `with moved as (
             update payin_transaction set ${columns.sql}, ${serviceFields.sql}, effect_fence = effect_fence + ?, updated_at = now()
             where id = ? and xmin::text = ? and deleted_at is null
             returning *
           ),
           noted as (
             insert into payin_status_change (transaction_id, from_status, to_status, source, service_data, created_at, updated_at)
             select id, ?, ?, ?, ?::jsonb, clock_timestamp(), clock_timestamp() from moved
           )
           select moved.*, (select count(*)::int from payin_transaction o
             where o.payment_collection_id = moved.payment_collection_id and o.deleted_at is null) as collection_payins
           from moved`,
          [
            ...columns.bindings,
            ...serviceFields.bindings,
            effect ? 1 : 0,
            seen.id,
            seen.row_version,
            seen.status,
            transition.to,
            source,
            changeDetails(seen, transition.to, tx),
          ]
        )
        if (!rows[0]) return { row: null, notices: [], claimed: null }
        const { collection_payins: _count, ...row } = rows[0] as ClaimedRow
        const notices: LedgerNotice[] = [{ kind: "status", from: transition.from, to: transition.to }]
        return { row: row as LedgerRow, notices, claimed: rows[0] as ClaimedRow }
      })
      if (moved.row) return { row: moved.row, transition, notices: moved.notices, claimed: effect ? moved.claimed : null }
    }
    return { ...(await this.recordStatus(seen.id, tx, source, accepts)), claimed: null }
  }

  async flag(ledgerId: string, flag: PayinFlag, details: Record<string, unknown>): Promise<boolean> {
    const { notices } = await this.commit(async (trx) => {
      const notices = await addFlag(trx, await lockRow(trx, ledgerId), flag, details)
      return { row: notices.length ? await rowIn(trx, ledgerId) : null, notices }
    })
    return notices.length > 0
  }

  async link(ledgerId: string, ids: { order_id?: string | null; cart_id?: string | null; via_pay_again?: boolean }): Promise<void> {
    const [order, cart, again] = [ids.order_id ?? null, ids.cart_id ?? null, Boolean(ids.via_pay_again)]
    await this.db().raw(
      `update payin_transaction set order_id = coalesce(order_id, ?), cart_id = coalesce(cart_id, ?), via_pay_again = via_pay_again or ?, updated_at = now()
       where id = ? and ((order_id is null and ?::text is not null) or (cart_id is null and ?::text is not null) or (? and not via_pay_again))`,
      [order, cart, again, ledgerId, order, cart, again]
    )
  }

  async markSessionDeleted(ledgerId: string): Promise<void> {
    await this.note(ledgerId, "session_deleted_at", "payment session deleted by Medusa")
  }

  /** Only while still attached to `sessionId`: a reattach to a newer session wins whichever ran first (the row lock orders them). */
  async markSessionDeletedIfCurrent(ledgerId: string, sessionId: string, note = "payment session deleted by Medusa"): Promise<boolean> {
    return this.db().transaction(async (trx) => {
      const row = await lockRow(trx, ledgerId)
      if (row.session_id !== sessionId) return false
      if (row.session_deleted_at) return true
      await trx.raw("update payin_transaction set session_deleted_at = now(), updated_at = now() where id = ?", [ledgerId])
      await history(trx, row, row.status, row.status, "store", note)
      return true
    })
  }

  /** Clears session_deleted_at: Medusa deletes the old session while it creates the new one. */
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
        "update payin_transaction set session_id = ?, session_deleted_at = null, reattach_requested_at = null, updated_at = now() where id = ? returning *",
        [to, ledgerId]
      )
      const why = row.reattach_requested_at ? "its late payment taken by" : "reused for"
      await history(trx, row, row.status, row.status, "store", `${why} payment session ${to} (was ${from ?? "none"})`)
      return rows[0] ?? null
    })
  }

  async requestReattach(ledgerId: string, fence: number): Promise<void> {
    const { rows } = await this.db().raw(
      `update payin_transaction set reattach_requested_at = now(), updated_at = now()
       where id = ? and effect_fence = ? and paid_at is not null and captured_at is null and deleted_at is null returning id`,
      [ledgerId, fence]
    )
    if (!rows.length) throw new EffectFencedError(ledgerId, fence)
  }

  async markEndedByStore(ledgerId: string, note: string, ids: { order_id?: string | null; cart_id?: string | null } = {}) {
    await this.link(ledgerId, ids)
    await this.note(ledgerId, "store_canceled_at", note)
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

  async createUnknown(providerId: string, tx: Transaction, details: Record<string, unknown> = {}): Promise<LedgerRow> {
    const externalId = tx.extra?.externalTransactionId ?? null
    const flags = JSON.stringify({ unknown_payin: { at: new Date().toISOString(), external_id: externalId, ...details } })
    const { row } = await this.commit(async (trx) => {
      const { rows } = await trx.raw(
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
      const notices: LedgerNotice[] = [{ kind: "flag", flag: "unknown_payin", details: { external_id: externalId, ...details } }]
      return { row: rows[0] as LedgerRow, notices }
    })
    return row!
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
