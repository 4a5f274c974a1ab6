// Placed orders for the capture benchmarks, prepared before any clock starts:
// - pay-in orders: cart → pp_payin_default session → complete (an order waiting for its payment),
//   then paid at the sandbox (no webhook URL: nothing is delivered) and the signed closed
//   Transaction kept as the webhook body to post;
// - system orders: cart → pp_system_default session → complete (authorized, not captured), the
//   payment id kept for POST /admin/payments/:id/capture.
import { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { PAYIN_MODULE } from "../../medusa-plugin.config"
import { sign } from "../../src/client/signature"
import type { RunningSandbox } from "../../src/sandbox"
import { control } from "../support/sandbox"
import { Storefront } from "../support/storefront"
import type { BenchRequest } from "./rate"

export type PayinOrder = { orderId: string; sessionId: string; payinId: string; webhook: BenchRequest }
export type SystemOrder = { orderId: string; sessionId: string; paymentId: string }

async function inParallel<T>(n: number, concurrency: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++
        out[i] = await make(i)
      }
    })
  )
  return out
}

async function placed(shop: Storefront, providerId: string, data?: Record<string, unknown>): Promise<{ orderId: string; sessionId: string }> {
  const cartId = await shop.cart()
  const session = await shop.session(cartId, providerId, data)
  const completed = await shop.complete(cartId)
  const orderId = completed.data?.order?.id
  if (completed.status !== 200 || !orderId) {
    throw new Error(`completing cart ${cartId} (${providerId}) did not place an order: ${completed.status} ${JSON.stringify(completed.data)}`)
  }
  return { orderId, sessionId: session.id }
}

export async function preparePayinOrders(
  ctx: { container: MedusaContainer; shop: Storefront; sandbox: RunningSandbox; key: string; instance?: string; sessionData?: Record<string, unknown> },
  n: number,
  concurrency = 4
): Promise<PayinOrder[]> {
  const orders = await inParallel(n, concurrency, async () => {
    const { orderId, sessionId } = await placed(ctx.shop, "pp_payin_default", ctx.sessionData)
    const payin = ctx.sandbox.core.store.getByExternalId(sessionId)
    if (!payin) throw new Error(`no pay-in at the sandbox for session ${sessionId}`)
    const paid = await control(ctx.sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    if (paid.status !== 200) throw new Error(`paying ${payin.id} at the sandbox: ${paid.status} ${JSON.stringify(paid.body)}`)
    const body = JSON.stringify(ctx.sandbox.transaction(payin.id))
    const webhook: BenchRequest = {
      method: "POST",
      path: `/hooks/payin/${ctx.instance ?? "default"}`,
      headers: { "content-type": "application/json", "x-signature": sign(body, ctx.key) },
      body,
    }
    return { orderId, sessionId, payinId: payin.id, webhook }
  })
  // the order.placed subscriber links each pay-in to its order asynchronously: let it finish, so
  // nothing of the preparation runs while the webhooks are timed
  const ledger = ctx.container.resolve(PAYIN_MODULE) as any
  const deadline = Date.now() + 30_000
  for (;;) {
    const rows = await ledger.listPayinTransactions({ session_id: orders.map((o) => o.sessionId) }, { select: ["session_id", "order_id"] })
    const linked = new Set(rows.filter((r: any) => r.order_id).map((r: any) => r.session_id))
    if (orders.every((o) => linked.has(o.sessionId))) break
    if (Date.now() > deadline) throw new Error(`pay-ins not linked to their orders after 30 s: ${orders.length - linked.size} left`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return orders
}

export async function prepareSystemOrders(ctx: { container: MedusaContainer; shop: Storefront }, n: number, concurrency = 4): Promise<SystemOrder[]> {
  const orders = await inParallel(n, concurrency, () => placed(ctx.shop, "pp_system_default"))
  const payments = await paymentsOf(ctx.container, orders.map((o) => o.sessionId))
  const bySession = new Map(payments.map((p) => [p.payment_session_id, p]))
  return orders.map((o) => {
    const payment = bySession.get(o.sessionId)
    if (!payment || payment.captured_at) throw new Error(`order ${o.orderId}: no authorized, uncaptured payment (${JSON.stringify(payment)})`)
    return { ...o, paymentId: payment.id }
  })
}

async function paymentsOf(container: MedusaContainer, sessionIds: string[]) {
  const payments = await container.resolve(Modules.PAYMENT).listPayments({ payment_session_id: sessionIds }, { relations: ["payment_session"] })
  return payments.map((p) => ({ id: p.id, captured_at: p.captured_at, payment_session_id: p.payment_session?.id }))
}

/** Session ids among `sessionIds` whose payment Medusa has not captured. */
export async function uncaptured(container: MedusaContainer, sessionIds: string[]): Promise<string[]> {
  const payments = await paymentsOf(container, sessionIds)
  const captured = new Set(payments.filter((p) => p.captured_at).map((p) => p.payment_session_id))
  return sessionIds.filter((id) => !captured.has(id))
}
