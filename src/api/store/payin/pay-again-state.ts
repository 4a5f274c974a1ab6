import { MedusaContainer } from "@medusajs/framework/types"
import type PayinModuleService from "../../../modules/payin/service"
import type { LedgerRow } from "../../../modules/payin/service"
import { type PayAgainRefusal, payAgainRefusal } from "../../../money-path/pay-again"
import { instanceIdOf } from "../../../provider-id"
import type { PayinOrderView } from "../../../storefront/types"
import { orderView } from "./lookups"

/** Payment statuses Medusa computes for an order whose money arrived (all or part): nothing to pay again. */
const PAID_STATUSES = new Set(["authorized", "partially_authorized", "captured", "partially_captured", "partially_refunded", "refunded"])

/** Where an order stands for "pay again": its pay-ins, the refusal (null: new details may be given), the grace period's end. */
export type PayAgainState = {
  order: PayinOrderView
  rows: LedgerRow[]
  /** The order's newest pay-in: its instance and payment collection are the new one's. */
  latest: LedgerRow | null
  refusal: PayAgainRefusal | null
  /** The end of the grace period; null while a pay-in of the order is still payable (or when refused). */
  until: Date | null
}

/** The pay-ins of an order (its payment collections' and those linked to it), newest first, and what pay again may do. */
export async function payAgainState(
  scope: MedusaContainer,
  payin: PayinModuleService,
  order: { id: string; payment_collection_ids: string[] },
  now = Date.now()
): Promise<PayAgainState> {
  const [view, byCollection, byOrder] = await Promise.all([
    orderView(scope, order.id),
    order.payment_collection_ids.length ? payin.ledger.ofCollections(order.payment_collection_ids) : Promise.resolve([] as LedgerRow[]),
    payin.queries.list({ orderId: order.id, limit: 50 }).then((l) => l.rows),
  ])
  const seen = new Set<string>()
  const rows = [...byCollection, ...byOrder]
    .filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)))
    .sort((a, b) => time(b.created_at) - time(a.created_at) || (a.id < b.id ? 1 : -1))
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
  return { order: view, rows, latest, refusal, until }
}

const time = (value: unknown): number => (value instanceof Date ? value.getTime() : new Date(value as string).getTime() || 0)
