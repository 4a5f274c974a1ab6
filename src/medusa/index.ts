export { LINK_READS, cartOfOrder, collectionsOfOrder, linksOfCollection, orderOfCart } from "./links"
export { clearExpiredLock, lockHeld, lockingProbed, locksInTable, releaseTableLock, takeTableLock } from "./locking-table"
export { type CradleSession, PAYMENT_CRADLE, capturedWith, sessionOf } from "./payment-cradle"
export { type InternalCheck, MEDUSA_INTERNALS, type MedusaInternal, checkMedusa } from "./check"
export {
  type ExistingNotification,
  NO_FEED_PROVIDER,
  PENDING_SEND_LOST_MS,
  channelsWithProvider,
  loadedNotificationModule,
  markNotificationFailed,
  notificationOfKey,
  sendVerdict,
  settleLostSend,
} from "./notification-module"
export { refreshPaymentCollection } from "./payment-collection"
export { perService } from "./per-service"
