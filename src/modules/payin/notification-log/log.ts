import { generateEntityId } from "@medusajs/framework/utils"
import type { Db } from "../db"

export type NotificationLogKind = "instructions" | "paid" | "expired"
export type NotificationLogStatus = "due" | "sent" | "failed" | "skipped"

export type NotificationLogRow = {
  id: string
  order_id: string
  kind: NotificationLogKind
  transaction_id: string | null
  status: NotificationLogStatus
  attempts: number
  last_error: string | null
  next_attempt_at: Date | null
  sent_at: Date | null
  notification_id: string | null
  trigger: string | null
  created_at: Date
  updated_at: Date
}

/** Attempts at one notification before the retry job gives up (the admin shows it failed). */
export const NOTIFICATION_MAX_ATTEMPTS = 8
/** A notification decided but not sent yet is picked up by the retry job after this long. */
export const NOTIFICATION_DUE_GRACE_SECONDS = 60

export function notificationRetryDelaySeconds(attempts: number): number {
  return Math.min(3600, 60 * 2 ** Math.max(0, attempts - 1))
}

const COLUMNS = `id, order_id, kind, transaction_id, status, attempts, last_error, next_attempt_at, sent_at, notification_id, trigger, created_at, updated_at`

export class NotificationLog {
  constructor(private readonly db: () => Db) {}

  /** Once per order and kind; `trx`: in the commit of what made it due. */
  async due(
    orderId: string,
    kind: NotificationLogKind,
    transactionId: string | null,
    trigger: string,
    trx: Pick<Db, "raw"> = this.db()
  ): Promise<NotificationLogRow> {
    const { rows } = await trx.raw(
      `insert into payin_notification (id, order_id, kind, transaction_id, status, next_attempt_at, trigger)
       values (?, ?, ?, ?, 'due', now() + make_interval(secs => ?), ?)
       on conflict (order_id, kind) where deleted_at is null
       do update set trigger = excluded.trigger,
         transaction_id = coalesce(payin_notification.transaction_id, excluded.transaction_id), updated_at = now()
       returning ${COLUMNS}`,
      [generateEntityId(undefined, "payinnt"), orderId, kind, transactionId, NOTIFICATION_DUE_GRACE_SECONDS, trigger]
    )
    return rows[0]
  }

  async sent(orderId: string, kind: NotificationLogKind, notificationId: string | null): Promise<void> {
    await this.db().raw(
      `update payin_notification set status = 'sent', attempts = attempts + 1, sent_at = coalesce(sent_at, now()),
         notification_id = coalesce(?, notification_id), last_error = null, next_attempt_at = null, updated_at = now()
       where order_id = ? and kind = ? and deleted_at is null`,
      [notificationId, orderId, kind]
    )
  }

  /** The Notification Module already holds it as sent (a crash after the send, before this record): no attempt counted. */
  async alreadySent(orderId: string, kind: NotificationLogKind, notificationId: string | null): Promise<void> {
    await this.db().raw(
      `update payin_notification set status = 'sent', sent_at = coalesce(sent_at, now()), notification_id = coalesce(?, notification_id),
         next_attempt_at = null, updated_at = now()
       where order_id = ? and kind = ? and deleted_at is null and status <> 'sent'`,
      [notificationId, orderId, kind]
    )
  }

  async failed(orderId: string, kind: NotificationLogKind, error: string): Promise<void> {
    await this.db().transaction(async (trx) => {
      const { rows } = await trx.raw(
        `select attempts, status from payin_notification where order_id = ? and kind = ? and deleted_at is null for update`,
        [orderId, kind]
      )
      if (!rows[0] || rows[0].status === "sent") return
      const attempts = Number(rows[0].attempts) + 1
      const retryIn = attempts >= NOTIFICATION_MAX_ATTEMPTS ? null : notificationRetryDelaySeconds(attempts)
      await trx.raw(
        `update payin_notification set status = 'failed', attempts = ?, last_error = ?,
           next_attempt_at = case when ?::int is null then null else now() + make_interval(secs => ?::int) end, updated_at = now()
         where order_id = ? and kind = ? and deleted_at is null`,
        [attempts, error.slice(0, 2000), retryIn, retryIn, orderId, kind]
      )
    })
  }

  async skipped(orderId: string, kind: NotificationLogKind, reason: string): Promise<void> {
    await this.db().raw(
      `update payin_notification set status = 'skipped', last_error = ?, next_attempt_at = null, updated_at = now()
       where order_id = ? and kind = ? and deleted_at is null and status in ('due', 'failed')`,
      [reason.slice(0, 500), orderId, kind]
    )
  }

  async dueForRetry(now: Date, limit = 100): Promise<NotificationLogRow[]> {
    const { rows } = await this.db().raw(
      `select ${COLUMNS} from payin_notification
       where next_attempt_at is not null and next_attempt_at <= ? and status in ('due', 'failed') and deleted_at is null
       order by next_attempt_at, id limit ?`,
      [now, limit]
    )
    return rows
  }

  async of(where: { transactionId: string; orderId?: string | null }): Promise<NotificationLogRow[]> {
    const { rows } = await this.db().raw(
      `select ${COLUMNS} from payin_notification
       where (transaction_id = ? or order_id = ?) and deleted_at is null order by created_at, id`,
      [where.transactionId, where.orderId ?? null]
    )
    return rows
  }
}
