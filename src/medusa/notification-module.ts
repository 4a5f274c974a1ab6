import type { FilterableNotificationProps, INotificationModuleService, NotificationDTO } from "@medusajs/framework/types"
import { MedusaModule } from "@medusajs/framework/modules-sdk"
import { Modules } from "@medusajs/framework/utils"

/**
 * The Notification Module as loaded in this process, for the health alerts: a module's own
 * container holds no other module (module isolation), and the health check runs from the payin
 * module's start hook in every server and worker, where no request or job container exists.
 */
export function loadedNotificationModule(): INotificationModuleService | null {
  const instance = MedusaModule.getModuleInstance(Modules.NOTIFICATION) as INotificationModuleService | Record<string, unknown> | undefined
  if (!instance) return null
  // one alias per registration: the module itself is its only entry in a store
  const service = typeof (instance as INotificationModuleService).createNotifications === "function" ? instance : Object.values(instance)[0]
  return service && typeof (service as INotificationModuleService).createNotifications === "function" ? (service as INotificationModuleService) : null
}

type ProviderService = { getProviderForChannels(channels: string[]): Promise<({ id: string; channels: string[] } | undefined)[]> }

/**
 * Which of `channels` have an enabled provider: the module's own lookup (its providers are fixed
 * at start-up), so an alert is never created for a channel Medusa would fail it on.
 */
export async function channelsWithProvider(module: INotificationModuleService, channels: readonly string[]): Promise<Set<string>> {
  const cradle = (module as { __container__?: Record<string, unknown> }).__container__
  const providers = cradle?.notificationProviderService as ProviderService | undefined
  if (typeof providers?.getProviderForChannels !== "function") {
    throw new Error("the Notification Module's cradle has no notificationProviderService.getProviderForChannels")
  }
  const found = await providers.getProviderForChannels([...channels])
  return new Set(channels.filter((c) => found.some((p) => p?.channels.includes(c))))
}

/** What a store without a `feed` provider is told (start-up, checkMedusa, the health report). */
export const NO_FEED_PROVIDER =
  'no notification provider for the "feed" channel, so pay-in alerts do not reach the admin\'s notification panel: add one to the Notification Module ' +
  '({ resolve: "@medusajs/medusa/notification-local", id: "local", options: { channels: ["feed"] } }), or send alerts by e-mail only (alertEmailRecipients)'

type Update = (data: { id: string; status: NotificationDTO["status"] }) => Promise<unknown>
export type ExistingNotification = { id: string; status: string; updated_at: string | Date }

/**
 * A `pending` row this old lost its sender (killed between the module's row and the provider's
 * answer): sent again, at least once rather than never (soak seed 1, 30 minutes: two paid
 * notifications left pending across a worker kill).
 */
export const PENDING_SEND_LOST_MS = 30_000

/** The row of an idempotency key (the module's filter type lacks the key its model has). */
export async function notificationOfKey(module: INotificationModuleService, key: string): Promise<ExistingNotification | undefined> {
  const filter: FilterableNotificationProps & { idempotency_key: string } = { idempotency_key: key }
  const [row] = (await module.listNotifications(filter, { select: ["id", "status", "updated_at"], take: 1 })) as (NotificationDTO & { updated_at?: Date | string })[]
  return row ? { id: row.id, status: row.status, updated_at: row.updated_at ?? row.created_at } : undefined
}

/**
 * Whether to send a key's notification: "send" when there is no row, its send failed, or a killed
 * sender left it `pending` past PENDING_SEND_LOST_MS (marked `failure` first: the module sends
 * again only failed rows, as themselves); "sent"; "in_flight" while a sender may still answer.
 */
export async function sendVerdict(module: INotificationModuleService, existing: ExistingNotification | undefined, now = Date.now()): Promise<"send" | "sent" | "in_flight"> {
  if (!existing || existing.status === "failure") return "send"
  if (existing.status !== "pending") return "sent"
  return (await settleLostSend(module, existing, now)) ? "send" : "in_flight"
}

/** A `pending` row past PENDING_SEND_LOST_MS is marked `failure` (true); false while its sender may still answer. */
export async function settleLostSend(module: INotificationModuleService, pending: ExistingNotification, now = Date.now()): Promise<boolean> {
  if (now - new Date(pending.updated_at).getTime() < PENDING_SEND_LOST_MS) return false
  await markNotificationFailed(module, pending.id)
  return true
}

/**
 * Marks a notification row `failure`. `updateNotifications` is MedusaService's generated update,
 * absent from INotificationModuleService's type.
 */
export async function markNotificationFailed(module: INotificationModuleService, id: string): Promise<void> {
  if (!("updateNotifications" in module) || typeof module.updateNotifications !== "function") {
    throw new Error("the Notification Module has no updateNotifications")
  }
  await (module.updateNotifications as Update).call(module, { id, status: "failure" })
}
