// Runs after the money path committed (subscriber, retry job): nothing here can fail or roll back a capture or a cancel.
import type { CreateNotificationDTO, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, MedusaError, Modules } from "@medusajs/framework/utils"
import { PAYIN_MODULE } from "../modules/payin/key"
import { errorMessage } from "../client/errors"
import type { LedgerRow } from "../modules/payin/ledger/types"
import type PayinModuleService from "../modules/payin/service"
import { LockTimeoutError, withLock } from "../money-path/lock"
import { cartOfOrder, notificationOfKey, sendVerdict, settleLostSend } from "../medusa"
import { loadSession, markLostSessions } from "../money-path/session"
import { instanceIdOf, isPayinProvider } from "../provider-id"
import { traceNotification } from "../telemetry"
import {
  NotificationKind,
  NotificationOrder,
  NotificationSettings,
  notificationData,
  notificationKey,
  templateOf,
} from "./data"

export type NotifyOutcome =
  | "sent"
  | "already_sent"
  | "disabled"
  | "skipped"
  | "failed"

export type NotifyResult = { kind: NotificationKind | null; outcome: NotifyOutcome; order_id: string | null; error?: string }

/** query.graph does not return an order's `payment_status` (its workflows compute it); the collections' statuses carry it. */
type Order = NotificationOrder & { collection_ids: string[]; collection_statuses: string[] }
const awaitingPayment = (order: Order) => order.collection_statuses.includes("awaiting") && !order.collection_statuses.includes("completed")
const paymentCompleted = (order: Order) => order.collection_statuses.includes("completed")

/** A killed holder blocks the key for 20 s; a waiter gives up after 10 s and fails, so a retried event sends once the lock expired. */
const SEND_LOCK = { expireSeconds: 20, waitMs: 10_000 }

const payinOf = (container: MedusaContainer) => container.resolve<PayinModuleService>(PAYIN_MODULE)
const queryOf = (container: MedusaContainer) => container.resolve(ContainerRegistrationKeys.QUERY)

/** Whether any provider instance has notifications on (settings cached 5 s): events cost nothing otherwise. */
export async function anyNotificationsEnabled(payin: PayinModuleService): Promise<boolean> {
  for (const id of payin.settings.instanceIds()) {
    if ((await payin.settings.providerOptions(id))?.notifications.enabled) return true
  }
  return false
}

async function settingsOf(payin: PayinModuleService, providerId: string): Promise<NotificationSettings | null> {
  const id = instanceIdOf(providerId)
  const options = id ? await payin.settings.providerOptions(id) : null
  return options?.notifications.enabled ? options.notifications : null
}

async function loadOrder(container: MedusaContainer, orderId: string): Promise<Order | null> {
  const query = queryOf(container)
  const [{ data: orders }, cartId] = await Promise.all([
    query.graph({
      entity: "order",
      fields: [
        "id",
        "display_id",
        "email",
        "status",
        "customer_id",
        "shipping_address.country_code",
        "billing_address.country_code",
        "payment_collections.id",
        "payment_collections.status",
      ],
      filters: { id: orderId },
    }),
    cartOfOrder(container, orderId),
  ])
  const order = orders[0]
  if (!order) return null
  const collections = (order.payment_collections ?? []) as { id: string; status?: string }[]
  return {
    ...order,
    cart_id: cartId,
    collection_ids: collections.map((c) => c.id).filter(Boolean),
    collection_statuses: collections.map((c) => c.status ?? ""),
  }
}

/** A pay-in row whose payment session is the order's own (a replaced session's pay-in is another cart state's). */
async function isOrdersPayin(container: MedusaContainer, row: LedgerRow, orderId: string) {
  if (!row.session_id || row.session_deleted_at) return null
  const session = await loadSession(container, row.session_id)
  return session?.orderId === orderId ? session : null
}

function isOpen(row: LedgerRow, now: number): boolean {
  const expires = row.expires_at ? new Date(row.expires_at).getTime() : null
  return (
    row.status === "active" &&
    !row.paid_at &&
    !row.store_canceled_at &&
    !row.session_deleted_at &&
    (expires === null || expires > now) &&
    Boolean(row.requisite || row.payment_page_url)
  )
}

export async function notifyOrderPlaced(container: MedusaContainer, orderId: string, trigger = "order.placed"): Promise<NotifyResult> {
  return guarded(container, null, orderId, trigger, async () => {
    const payin = payinOf(container)
    if (!(await anyNotificationsEnabled(payin))) return { kind: null, outcome: "disabled", order_id: orderId }
    const order = await loadOrder(container, orderId)
    const rows = order ? (await payin.ledger.ofCollections(order.collection_ids)).filter((r) => r.session_id) : []
    if (!order || !rows.length) return { kind: null, outcome: "skipped", order_id: orderId }
    const paid = rows.filter((r) => r.paid_at)
    if (paid.length) {
      for (const row of paid) {
        const session = await isOrdersPayin(container, row, order.id)
        if (session?.paymentCapturedAt) return send(container, "paid", order, row, trigger)
      }
      return { kind: "paid", outcome: "skipped", order_id: orderId }
    }
    if (!awaitingPayment(order) || order.status === "canceled") {
      return { kind: "instructions", outcome: "skipped", order_id: orderId }
    }
    const now = Date.now()
    for (const row of rows) {
      if (isOpen(row, now) && (await isOrdersPayin(container, row, order.id))) {
        return send(container, "instructions", order, row, trigger)
      }
    }
    return { kind: "instructions", outcome: "skipped", order_id: orderId }
  })
}

export async function notifyCaptured(container: MedusaContainer, ledgerId: string, trigger: string, providerId?: string): Promise<NotifyResult> {
  return guarded(container, "paid", null, trigger, () => paidNotice(container, ledgerId, trigger, providerId))
}

async function paidNotice(container: MedusaContainer, ledgerId: string, trigger: string, providerId?: string): Promise<NotifyResult> {
  const payin = payinOf(container)
  // the event names its pay-in's instance: nothing is read when that instance sends none
  if (providerId && !(await settingsOf(payin, providerId))) return { kind: "paid", outcome: "disabled", order_id: null }
  const row = await payin.ledger.get(ledgerId)
  if (!row?.session_id) return { kind: "paid", outcome: "skipped", order_id: null }
  if (!(await settingsOf(payin, row.provider_id))) return { kind: "paid", outcome: "disabled", order_id: row.order_id }
  const session = await loadSession(container, row.session_id)
  const order = session?.orderId && session.paymentCapturedAt ? await loadOrder(container, session.orderId) : null
  if (!order) return { kind: "paid", outcome: "skipped", order_id: session?.orderId ?? null }
  return send(container, "paid", order, row, trigger)
}

export async function notifyPaymentCaptured(container: MedusaContainer, paymentId: string): Promise<NotifyResult> {
  return guarded(container, "paid", null, "payment.captured", async () => {
    const payin = payinOf(container)
    if (!(await anyNotificationsEnabled(payin))) return { kind: "paid", outcome: "disabled", order_id: null }
    const { data } = await queryOf(container).graph({
      entity: "payment",
      fields: ["id", "provider_id", "payment_session_id"],
      filters: { id: paymentId },
    })
    const payment = data[0] as { provider_id?: string; payment_session_id?: string } | undefined
    if (!payment?.payment_session_id || !isPayinProvider(payment.provider_id)) return { kind: "paid", outcome: "skipped", order_id: null }
    const row = await payin.ledger.findBy("session_id", payment.payment_session_id)
    return row ? paidNotice(container, row.id, "payment.captured") : { kind: "paid", outcome: "skipped", order_id: null }
  })
}

export async function notifyExpired(container: MedusaContainer, ledgerId: string, trigger: string): Promise<NotifyResult> {
  return guarded(container, "expired", null, trigger, async () => {
    const payin = payinOf(container)
    const row = await payin.ledger.get(ledgerId)
    if (!row?.session_id) return { kind: "expired", outcome: "skipped", order_id: null }
    if (!(await settingsOf(payin, row.provider_id))) return { kind: "expired", outcome: "disabled", order_id: row.order_id }
    const session = row.paid_at || row.session_deleted_at ? null : await loadSession(container, row.session_id)
    // an order's pay-in whose session Medusa deleted after it ended (pay again's new session): the
    // order linked at order.placed (soak seed 1, 30 minutes: expired never sent)
    const orderId = session ? (session.paymentCapturedAt ? null : session.orderId) : row.paid_at ? null : row.order_id
    const order = orderId ? await loadOrder(container, orderId) : null
    if (!order || paymentCompleted(order)) return { kind: "expired", outcome: "skipped", order_id: order?.id ?? null }
    const now = Date.now()
    const others = (await markLostSessions(container, await payin.ledger.ofCollections(order.collection_ids))).filter((r) => r.id !== row.id)
    if (others.some((r) => r.paid_at || isOpen(r, now))) return { kind: "expired", outcome: "skipped", order_id: order.id }
    return send(container, "expired", order, row, trigger)
  })
}

async function send(
  container: MedusaContainer,
  kind: NotificationKind,
  order: Order,
  row: LedgerRow,
  trigger: string
): Promise<NotifyResult> {
  const settings = await settingsOf(payinOf(container), row.provider_id)
  if (!settings) return { kind, outcome: "disabled", order_id: order.id }
  if (!order.email) {
    container.resolve("logger").info(`payin: no ${kind} notification for order ${order.id}: the order has no email`)
    return { kind, outcome: "skipped", order_id: order.id }
  }
  const key = notificationKey(kind, order.id)
  const log = payinOf(container).notifications
  // recorded before the send: a failure, or a crash before the send, is sent again by the retry job
  const owed = await log.due(order.id, kind, row.id, trigger)
  if (owed.status === "sent") return { kind, outcome: "already_sent", order_id: order.id }
  const notifications = container.resolve(Modules.NOTIFICATION)
  const template = templateOf(kind, settings)
  const data = notificationData(kind, { ...order, email: order.email }, row, settings)
  try {
    return await withLock(
      container,
      `payin-notification:${key}`,
      async (): Promise<NotifyResult> => {
        const existing = await notificationOfKey(notifications, key)
        const verdict = await sendVerdict(notifications, existing)
        if (verdict === "in_flight") throw new Error(`the notification ${existing!.id} is being sent (pending since ${new Date(existing!.updated_at).toISOString()})`)
        if (verdict === "sent") {
          await log.alreadySent(order.id, kind, existing!.id)
          return { kind, outcome: "already_sent", order_id: order.id }
        }
        if (existing?.status === "pending") {
          container.resolve("logger").warn(`payin: the ${kind} notification of order ${order.id} was left pending (its sender stopped before the provider's answer was recorded): sent again`)
        }
        const created = await notifications.createNotifications({
          // a row the provider failed to send is sent again as itself (the module updates it by id)
          ...(existing ? { id: existing.id } : {}),
          to: order.email!,
          channel: settings.channel,
          template,
          data,
          trigger_type: trigger,
          resource_id: order.id,
          resource_type: "order",
          receiver_id: order.customer_id ?? null,
          idempotency_key: key,
        } as CreateNotificationDTO)
        const createdId = (Array.isArray(created) ? (created[0] as { id?: string } | undefined)?.id : (created as { id?: string } | null)?.id)
        await log.sent(order.id, kind, existing?.id ?? createdId ?? null)
        container.resolve("logger").info(`payin: notification ${template} (${kind}) for order ${order.id} created on channel ${settings.channel}`)
        return { kind, outcome: "sent", order_id: order.id }
      },
      SEND_LOCK
    )
  } catch (error) {
    // a concurrent duplicate that reached the unique index (locks not shared between processes)
    if (isDuplicate(error)) {
      await log.alreadySent(order.id, kind, null)
      return { kind, outcome: "already_sent", order_id: order.id }
    }
    // another process is sending it, or died doing so: a retry finds it sent, or takes the expired lock
    const message =
      error instanceof LockTimeoutError ? `another process holds the notification ${key} (its lock expires by itself)` : errorMessage(error)
    container.resolve("logger").warn(`payin: could not send the ${kind} notification of order ${order.id}: ${message}`)
    await log.failed(order.id, kind, message).catch((e: unknown) =>
      container.resolve("logger").warn(`payin: could not record the failed ${kind} notification of order ${order.id}: ${errorMessage(e)}`)
    )
    return { kind, outcome: "failed", order_id: order.id, error: message }
  }
}

/**
 * A notification no longer owed whose row its killed sender left `pending` in Medusa is marked
 * `failure` (it was never sent), so none stays pending (soak seed 1, 30 minutes); "in_flight" while
 * that sender may still answer.
 */
export async function settleUnsent(container: MedusaContainer, kind: NotificationKind, orderId: string): Promise<"settled" | "in_flight"> {
  const notifications = container.resolve(Modules.NOTIFICATION)
  const key = notificationKey(kind, orderId)
  return withLock(
    container,
    `payin-notification:${key}`,
    async () => {
      const existing = await notificationOfKey(notifications, key)
      return existing?.status !== "pending" || (await settleLostSend(notifications, existing)) ? "settled" : "in_flight"
    },
    SEND_LOCK
  )
}

function isDuplicate(error: unknown): boolean {
  const e = error as { type?: string; code?: string; message?: string } | null
  return Boolean(
    e && (e.type === MedusaError.Types.DUPLICATE_ERROR || e.code === "23505" || /idempotency_key.*already exists/i.test(e.message ?? ""))
  )
}

/** Logs the error only (never a setting) and reports it, never throws; traced as one notification effect. */
async function guarded(
  container: MedusaContainer,
  kind: NotificationKind | null,
  orderId: string | null,
  trigger: string,
  step: () => Promise<NotifyResult>
): Promise<NotifyResult> {
  return traceNotification(trigger, async () => {
    try {
      return await step()
    } catch (error) {
      const message = errorMessage(error)
      container
        .resolve("logger")
        .warn(`payin: could not send the ${kind ?? "pay-in"} notification${orderId ? ` of order ${orderId}` : ""}: ${message}`)
      return { kind, outcome: "failed", order_id: orderId, error: message }
    }
  })
}
