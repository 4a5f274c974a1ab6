import { MedusaContainer } from "@medusajs/framework/types"
import type PayinModuleService from "../../../modules/payin/service"
import type { PayinProviderOptions } from "../../../modules/payin/settings/options"
import type { LedgerRow } from "../../../modules/payin/service"
import { type PayAgainRefusal, payAgainRefusal } from "../../../money-path/pay-again"
import { markLostSessions } from "../../../money-path/session"
import { instanceIdOf } from "../../../provider-id"
import type { PayinOrderView } from "../../../storefront/types"
import { ledgerRowsOf, orderView } from "./lookups"

/** Payment statuses Medusa computes for an order whose money arrived (all or part): nothing to pay again. */
const PAID_STATUSES = new Set(["authorized", "partially_authorized", "captured", "partially_captured", "partially_refunded", "refunded"])

export type PayAgainState = {
  order: PayinOrderView
  rows: LedgerRow[]
  /** The order's newest pay-in: its instance and payment collection are the new one's. */
  latest: LedgerRow | null
  refusal: PayAgainRefusal | null
  /** The end of the grace period; null while a pay-in of the order is still payable (or when refused). */
  until: Date | null
  /** The settings of the newest pay-in's instance (null without a pay-in or for an unknown instance). */
  options: PayinProviderOptions | null
}

/** `rows` newest first, as ledgerRowsOf reads them (read here when not given). */
export async function payAgainState(
  scope: MedusaContainer,
  payin: PayinModuleService,
  order: { id: string; payment_collection_ids: string[] },
  now = Date.now(),
  given?: LedgerRow[]
): Promise<PayAgainState> {
  const [view, rows] = await Promise.all([
    orderView(scope, order.id),
    given ?? ledgerRowsOf(payin, { paymentCollectionIds: order.payment_collection_ids, orderId: order.id }).then((rows) => markLostSessions(scope, rows)),
  ])
  const latest = rows[0] ?? null
  const instanceId = latest ? instanceIdOf(latest.provider_id) : null
  const options = instanceId ? await payin.settings.providerOptions(instanceId) : null
  const { refusal, until } = payAgainRefusal({
    orderRows: rows,
    options: options?.payAgain,
    orderCanceled: view.status === "canceled",
    orderPaid: PAID_STATUSES.has(view.payment_status),
    now,
  })
  return { order: view, rows, latest, refusal, until, options }
}
