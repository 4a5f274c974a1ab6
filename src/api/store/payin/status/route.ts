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
import { statusOf, type StatusWhere } from "../status-body"
import type { PayinStatusResponse } from "../../../../storefront/types"
import { PayinWatch, type VersionReader, versionOf } from "./wait"
import { statusQuerySchema } from "../validators"
import { storeRoute } from "../unavailable"

const throttle = new LookupThrottle()
/** At most one warning a minute about failed lookups (a down service must not flood the log). */
const WARN_INTERVAL_MS = 60_000
let lastWarnAt = 0
let suppressedWarnings = 0

// The id is the capability, as in Medusa's own GET /store/carts/:id and /store/orders/:id, within the publishable key's sales channels.
export const GET = storeRoute(status)

async function status(req: MedusaStoreRequest, res: MedusaResponse): Promise<void> {
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

  const where = { cartId, orderId, collectionIds }
  const found = await statusOf(req.scope, payin, { ...where, refresh: refreshIfDue })
  if (query.wait === undefined || query.since === undefined) {
    res.json(found.body)
    return
  }
  const held = await holdUntilChanged(req.scope, payin, res, where, found, { waitMs: query.wait * 1000, since: query.since })
  if (held) res.json(held)
}

const watch = new PayinWatch()
/** A little after the window's end, so the answer built then sees it ended. */
const AFTER_EXPIRY_MS = 50

/**
 * Answers when the view differs from `since`, or with the current view once `waitMs` passed; null when the client
 * went away. While waiting it only re-reads the pay-in's version (PayinWatch) and never looks the pay-in up at the
 * service: the lookup that is due ran once, before the wait, as for any poll.
 */
async function holdUntilChanged(
  scope: MedusaContainer,
  payin: PayinModuleService,
  res: MedusaResponse,
  where: StatusWhere,
  found: { body: PayinStatusResponse; row: LedgerRow | null },
  ask: { waitMs: number; since: string }
): Promise<PayinStatusResponse | null> {
  const started = Date.now()
  const deadline = started + ask.waitMs
  const answer = (body: PayinStatusResponse) => ({
    ...body,
    long_poll: { waited_ms: Date.now() - started, changed: body.view_tag !== ask.since },
  })
  let { body, row } = found
  if (body.view_tag !== ask.since || !row || ask.waitMs <= 0) return answer(body)

  let closed = false
  let onClose!: () => void
  const gone = new Promise<"closed">((resolve) => (onClose = () => ((closed = true), resolve("closed"))))
  res.on("close", onClose)
  try {
    while (!closed) {
      const left = deadline - Date.now()
      if (left <= 0) break
      const expires = row.expires_at ? new Date(row.expires_at).getTime() - Date.now() + AFTER_EXPIRY_MS : Infinity
      const watched = watch.watch(row.id, versionOf(row.updated_at), readVersions(payin))
      if (!watched) break
      let timer: ReturnType<typeof setTimeout> | undefined
      const outcome = await Promise.race([
        watched.woken.then(() => "changed" as const),
        new Promise<"timer">((resolve) => (timer = setTimeout(() => resolve("timer"), expires > 0 ? Math.min(left, expires) : left))),
        gone,
      ])
      watched.cancel()
      clearTimeout(timer)
      if (outcome === "closed") return null
      ;({ body, row } = await statusOf(scope, payin, where))
      if (body.view_tag !== ask.since || !row) return answer(body)
    }
    if (closed) return null
    // the clock fields of an answer held this long are rebuilt (a countdown corrects itself by server_time)
    return answer(Date.now() - started > 1000 ? (await statusOf(scope, payin, where)).body : body)
  } finally {
    res.off("close", onClose)
  }
}

function readVersions(payin: PayinModuleService): VersionReader {
  return async (ids) => {
    const rows = await payin.listPayinTransactions({ id: ids }, { select: ["id", "updated_at"], take: ids.length })
    return new Map(rows.map((r) => [r.id, versionOf(r.updated_at)] as [string, number]))
  }
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
