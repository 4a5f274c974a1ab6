import type { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../modules/payin/key"
import { NOTIFICATION_RETRY_INTERVAL_SECONDS, NOTIFICATION_RETRY_JOB } from "../modules/payin/job-runs/job-runs"
import { errorMessage } from "../client/errors"
import type { NotificationLogRow } from "../modules/payin/notification-log/log"
import type PayinModuleService from "../modules/payin/service"
import { tryLock } from "../money-path/lock"
import { NotifyResult, notifyCaptured, notifyExpired, notifyOrderPlaced, settleUnsent } from "./notify"

export type NotificationRetryReport = { due: number; sent: number; failed: number; skipped: number }

/** Each decided afresh, as its trigger would: one no longer owed is recorded skipped, never sent late. */
export async function retryDueNotifications(
  container: MedusaContainer,
  { now = new Date(), limit = 50 }: { now?: Date; limit?: number } = {}
): Promise<NotificationRetryReport> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const due = await payin.notifications.dueForRetry(now, limit)
  const report: NotificationRetryReport = { due: due.length, sent: 0, failed: 0, skipped: 0 }
  for (const owed of due) {
    let result: NotifyResult
    try {
      result = await decideAgain(container, owed)
    } catch (error) {
      result = { kind: owed.kind, outcome: "failed", order_id: owed.order_id, error: errorMessage(error) }
    }
    if (result.kind === owed.kind && (result.outcome === "sent" || result.outcome === "already_sent")) {
      report.sent++
    } else if (result.kind === owed.kind && result.outcome === "failed") {
      report.failed++
    } else {
      // decided otherwise now (another kind is owed, nothing is, or notifications are off); a row a
      // killed sender left pending in Medusa is settled first, or this is tried again later
      const unsent = await settleUnsent(container, owed.kind, owed.order_id).catch((error: unknown) => errorMessage(error))
      if (unsent === "settled") {
        await payin.notifications.skipped(owed.order_id, owed.kind, `no longer due: ${result.kind ?? "nothing"} ${result.outcome}`)
        report.skipped++
      } else {
        const why = unsent === "in_flight" ? "no longer due, but its sender may still answer (Medusa's row of it is pending)" : unsent
        await payin.notifications.failed(owed.order_id, owed.kind, why)
        report.failed++
      }
    }
  }
  return report
}

function decideAgain(container: MedusaContainer, owed: NotificationLogRow): Promise<NotifyResult> {
  if (owed.kind === "instructions") return notifyOrderPlaced(container, owed.order_id, "retry")
  if (!owed.transaction_id) return Promise.resolve({ kind: owed.kind, outcome: "skipped", order_id: owed.order_id })
  return owed.kind === "paid"
    ? notifyCaptured(container, owed.transaction_id, "retry")
    : notifyExpired(container, owed.transaction_id, "retry")
}

export { NOTIFICATION_RETRY_JOB }
export const NOTIFICATION_RETRY_SCHEDULE = "* * * * *"
/** Held for most of the minute: one run per minute across all workers. */
const RETRY_LOCK_SECONDS = 50

export async function retryDueNotificationsScheduled(container: MedusaContainer): Promise<NotificationRetryReport | null> {
  const owner = `notification-retry-${process.pid}-${Math.random().toString(36).slice(2)}`
  if (!(await tryLock(container, "payin:notification-retry", owner, RETRY_LOCK_SECONDS))) return null
  const logger = container.resolve("logger")
  try {
    const report = await retryDueNotifications(container)
    if (report.due) {
      logger.info(`payin: notifications retried: ${report.sent} sent, ${report.failed} failed again, ${report.skipped} no longer due`)
    }
    // every run is recorded: the admin and the schedule watchdog read when it last ran
    await container.resolve<PayinModuleService>(PAYIN_MODULE).jobs.record(NOTIFICATION_RETRY_JOB, report, NOTIFICATION_RETRY_INTERVAL_SECONDS)
    return report
  } catch (error) {
    logger.warn(`payin: the notification retry run stopped: ${errorMessage(error)}`)
    return null
  }
}
