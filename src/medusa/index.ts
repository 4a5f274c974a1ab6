export { LINK_READS, cartOfOrder, collectionsOfOrder, linksOfCollection, orderOfCart } from "./links"
export { clearExpiredLock } from "./locking-table"
export { type CradleSession, PAYMENT_CRADLE, capturedWith, sessionOf } from "./payment-cradle"
export { type InternalCheck, MEDUSA_INTERNALS, type MedusaInternal, checkMedusa } from "./check"
