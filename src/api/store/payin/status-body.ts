import { MedusaContainer } from "@medusajs/framework/types"
import type PayinModuleService from "../../../modules/payin/service"
import type { LedgerRow } from "../../../modules/payin/service"
import type { PayinStatusResponse } from "../../../storefront/types"
import { cartIdOfOrder, ledgerRowsOf, orderView } from "./lookups"
import { isPayable } from "../../../money-path/pay-again"
import { payAgainState } from "./pay-again-state"
import { pickCurrentRow } from "./scope"
import { toStatusView, viewTag } from "./status-view"

export type StatusWhere = {
  cartId: string | null
  orderId: string | null
  collectionIds: string[]
  refresh?: (scope: MedusaContainer, payin: PayinModuleService, row: LedgerRow) => Promise<LedgerRow>
}

export async function statusBody(scope: MedusaContainer, payin: PayinModuleService, where: StatusWhere): Promise<PayinStatusResponse> {
  return (await statusOf(scope, payin, where)).body
}

/** The answer and the pay-in row it shows (what a held request watches). */
export async function statusOf(
  scope: MedusaContainer,
  payin: PayinModuleService,
  where: StatusWhere
): Promise<{ body: PayinStatusResponse; row: LedgerRow | null }> {
  const { cartId, orderId, collectionIds, refresh } = where
  let rows = await ledgerRowsOf(payin, { paymentCollectionIds: collectionIds, orderId })
  let row = pickCurrentRow(rows)
  if (row && refresh) {
    const refreshed = await refresh(scope, payin, row)
    rows = rows.map((r) => (r.id === refreshed.id ? refreshed : r))
    row = refreshed
  }
  const now = new Date()
  // read after the refresh: a lookup that found the pay-in paid has captured the order
  // only for a pay-in that ended unpaid: a payable or paid one has nothing to pay again
  const ended = row && !row.paid_at && !isPayable(row, now.getTime())
  const again = orderId && ended ? await payAgainState(scope, payin, { id: orderId, payment_collection_ids: collectionIds }, now.getTime(), rows) : null
  const body: Omit<PayinStatusResponse, "view_tag"> = {
    cart_id: cartId,
    order: again ? again.order : orderId ? await orderView(scope, orderId) : null,
    payin: row
      ? toStatusView(row, {
          now,
          originalFiatAmount: row.assigned_amount ?? null,
          effectRetryLimit: (await payin.settings.plugin()).effectRetryLimit,
        })
      : null,
    pay_again: again && !again.refusal && again.until ? { until: again.until.toISOString() } : null,
    server_time: now.toISOString(),
  }
  return { body: { ...body, view_tag: viewTag(body) }, row }
}

export async function orderStatusBody(
  scope: MedusaContainer,
  payin: PayinModuleService,
  order: { id: string; payment_collection_ids: string[] }
): Promise<PayinStatusResponse> {
  return statusBody(scope, payin, { cartId: await cartIdOfOrder(scope, order.id), orderId: order.id, collectionIds: order.payment_collection_ids })
}
