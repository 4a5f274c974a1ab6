import { MedusaStoreRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaContainer } from "@medusajs/framework/types"
import { errorMessage } from "../../../../client/errors"
import type PayinModuleService from "../../../../modules/payin/service"
import type { LedgerRow } from "../../../../modules/payin/service"
import { reconcileWithService } from "../../../../money-path/lookup"
import { notFound, parseOr400, payinModule } from "../../../utils"
import { cartIdOfOrder, findCart, findOrder, orderIdOfCart } from "../lookups"
import { LookupThrottle, dueForLookup } from "../refresh"
import { inSalesChannels } from "../scope"
import { isFinalShopperState } from "../../../../status"
import { payinState } from "../status-view"
import { statusBody } from "../status-body"
import { statusQuerySchema } from "../validators"

const throttle = new LookupThrottle()
/** At most one warning a minute about failed lookups (a down service must not flood the log). */
const WARN_INTERVAL_MS = 60_000
let lastWarnAt = 0
let suppressedWarnings = 0

// The id is the capability, as in Medusa's own GET /store/carts/:id and /store/orders/:id, within the publishable key's sales channels.
export async function GET(req: MedusaStoreRequest, res: MedusaResponse): Promise<void> {
  const query = parseOr400(res, statusQuerySchema, req.query)
  if (!query) return
  const channels = req.publishable_key_context?.sales_channel_ids
  const payin = payinModule(req)

  let cartId: string | null
  let orderId: string | null
  let collectionIds: string[]
  if (query.cart_id) {
    const cart = await findCart(req.scope, query.cart_id)
    if (!cart || !inSalesChannels(cart.sales_channel_id, channels)) {
      notFound(res, `Cart with id: ${query.cart_id} was not found`)
      return
    }
    cartId = cart.id
    orderId = await orderIdOfCart(req.scope, cart.id)
    const order = orderId ? await findOrder(req.scope, orderId) : null
    collectionIds = [...(cart.payment_collection_id ? [cart.payment_collection_id] : []), ...(order?.payment_collection_ids ?? [])]
  } else {
    const order = await findOrder(req.scope, query.order_id!)
    if (!order || !inSalesChannels(order.sales_channel_id, channels)) {
      notFound(res, `Order with id: ${query.order_id} was not found`)
      return
    }
    orderId = order.id
    cartId = await cartIdOfOrder(req.scope, order.id)
    collectionIds = order.payment_collection_ids
  }

  res.json(await statusBody(req.scope, payin, { cartId, orderId, collectionIds, refresh: refreshIfDue }))
}


// A status the lookup finds new has its effect run once, as a webhook's would; retries are the reconciliation job's, never the poll's (source "store").
async function refreshIfDue(scope: MedusaContainer, payin: PayinModuleService, row: LedgerRow): Promise<LedgerRow> {
  const now = new Date()
  const final = isFinalShopperState(payinState(row))
  const { reconcileAfterSeconds } = await payin.settings.plugin()
  if (!dueForLookup(row, final, now, reconcileAfterSeconds) || !throttle.tryAcquire(row.id, now.getTime())) {
    return row
  }
  try {
    await reconcileWithService(scope, row, "store")
  } catch (error) {
    warn(scope, `payin: looking up ${row.id} on a status poll failed: ${errorMessage(error)}`)
    return row
  }
  return (await payin.ledger.get(row.id)) ?? row
}

function warn(scope: MedusaContainer, message: string): void {
  const now = Date.now()
  if (now - lastWarnAt < WARN_INTERVAL_MS) {
    suppressedWarnings++
    return
  }
  const suppressed = suppressedWarnings
  lastWarnAt = now
  suppressedWarnings = 0
  scope.resolve("logger").warn(suppressed ? `${message} (${suppressed} similar warnings suppressed)` : message)
}
