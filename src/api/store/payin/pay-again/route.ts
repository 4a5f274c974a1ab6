import { MedusaResponse, MedusaStoreRequest } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { createPaymentSessionsWorkflow } from "@medusajs/medusa/core-flows"
import { withCode } from "../../../../error-code"
import { withLock } from "../../../../money-path/lock"
import type { PayAgainRefusal } from "../../../../money-path/pay-again"
import { CLIENT_CONTEXT_KEY, parseStorefrontData } from "../../../../providers/payin/storefront-data"
import { notFound, parseOr400, payinModule } from "../../../utils"
import { findOrder } from "../lookups"
import { payAgainState } from "../pay-again-state"
import { inSalesChannels } from "../scope"
import { orderStatusBody } from "../status-body"
import { payAgainBodySchema } from "../validators"
import { storeRoute } from "../unavailable"
import { earlierReturnUrls } from "./return-urls"

const REFUSALS: Record<PayAgainRefusal, string> = {
  payin_pay_again_off: "New payment details cannot be given for this order: the store does not offer paying again",
  payin_grace_over: "The time to pay this order again has ended",
  payin_order_paid: "This order is already paid: no new payment details are needed",
  payin_order_canceled: "This order was canceled",
  payin_not_this_provider: "This order is not paid by bank transfer through this store's pay-in provider",
}

/**
 * One request per order at a time. Renewed every few seconds while it runs, so a server killed
 * holding it blocks the order for at most `expireSeconds`, less than a waiter waits (then 503 payin_busy).
 */
export const PAY_AGAIN_LOCK = { expireSeconds: 10, waitMs: 12_000 }

export const POST = storeRoute(payAgain)

async function payAgain(req: MedusaStoreRequest, res: MedusaResponse): Promise<void> {
  const body = parseOr400(res, payAgainBodySchema, req.body)
  if (!body) return
  const { order_id: orderId, ...chosen } = body
  const order = await findOrder(req.scope, orderId)
  if (!order || !inSalesChannels(order.sales_channel_id, req.publishable_key_context?.sales_channel_ids)) {
    notFound(res, `Order with id: ${orderId} was not found`)
    return
  }
  const payin = payinModule(req)
  const client = {
    ip: (req.ip ?? req.socket?.remoteAddress ?? "").replace(/^::ffff:/, "").slice(0, 64) || undefined,
    user_agent: (req.get("user-agent") ?? "").slice(0, 1024) || undefined,
  }
  const refusal = await withLock(
    req.scope,
    `payin:pay-again:${order.id}`,
    async (hold) => {
      const state = await payAgainState(req.scope, payin, order)
      if (state.refusal) return state.refusal
      if (!state.until || !state.latest?.payment_collection_id) return null // a pay-in of the order is payable: shown as it is
      // the order's earlier return URLs, from the ledger; the body's URLs win, key by key
      const back = earlierReturnUrls(state.rows, state.options?.allowedRedirectOrigins ?? [])
      const data = { ...back, ...chosen }
      // the provider's own check, run first: a bad URL is refused before Medusa replaces any session
      if (state.options) parseStorefrontData(data, state.options)
      hold.throwIfLost()
      const { result: session } = await createPaymentSessionsWorkflow(req.scope).run({
        input: {
          payment_collection_id: state.latest.payment_collection_id,
          provider_id: state.latest.provider_id,
          data: { ...data, [CLIENT_CONTEXT_KEY]: { ...client, payment_collection_id: state.latest.payment_collection_id } },
        },
      })
      const created = await payin.ledger.findBy("session_id", session.id)
      if (created) {
        await payin.ledger.link(created.id, { order_id: order.id, cart_id: state.latest.cart_id ?? null, via_pay_again: true })
      }
      return null
    },
    PAY_AGAIN_LOCK
  )
  if (refusal) {
    res.status(409).json({ type: MedusaError.Types.NOT_ALLOWED, code: refusal, message: withCode(REFUSALS[refusal], refusal) })
    return
  }
  res.json(await orderStatusBody(req.scope, payin, order))
}
