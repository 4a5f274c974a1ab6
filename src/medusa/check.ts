import type { CapturePaymentInput, CapturePaymentOutput, IPaymentProvider, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { StepResponse, WorkflowResponse, createStep, createWorkflow } from "@medusajs/framework/workflows-sdk"
import { LINK_READS } from "./links"
import { lockingTableColumns } from "./locking-table"
import { NO_FEED_PROVIDER, channelsWithProvider, loadedNotificationModule, markNotificationFailed } from "./notification-module"
import { refreshPaymentCollection } from "./payment-collection"
import { capturedWith, sessionOf } from "./payment-cradle"
import { perService } from "./per-service"

export const MEDUSA_INTERNALS = {
  "payment.cradle.paymentSessionService":
    "a payment provider reads a session's amount, currency and payment collection through the payment module's paymentSessionService in its cradle",
  "payment.cradle.captureService":
    "a payment provider reads the captures of the payment being captured through the payment module's captureService in its cradle",
  "payment.capture.idempotency_key":
    "the payment module calls capturePayment with the new Capture's id as context.idempotency_key, the Capture already written",
  "payment.collection_refresh":
    "the payment module's maybeUpdatePaymentCollection_(id) recounts a payment collection's amounts and status from its sessions, captures and refunds",
  "link.order_cart": "Query reads the link order_cart (order_id, cart_id)",
  "link.order_payment_collection": "Query reads the link order_payment_collection (order_id, payment_collection_id)",
  "link.payment_collection": "Query reads a payment collection's linked cart and order (cart.id, order.id, order.status)",
  "locking.table":
    "locking-postgres keeps its locks in the table locking (id, owner_id, expiration), a row per key: the plugin takes and releases its payin: keys there itself, and reads whether a cart's completion holds the key <cart id>",
  "modules.notification_instance":
    "MedusaModule.getModuleInstance gives the loaded Notification Module to code with no request or job container (the health check in a module's start hook)",
  "modules.notification_providers":
    "the Notification Module's cradle holds notificationProviderService, whose getProviderForChannels(channels) gives the enabled providers of those channels (the health alerts skip a channel with none)",
  "modules.notification_update":
    "the Notification Module's service has MedusaService's updateNotifications({ id, status }), which the plugin uses to mark a notification left pending by a killed sender as failed so it is sent again",
  "modules.workflow_container":
    "a workflow's container (a scheduled job's) hands out each module service in a new Proxy that writes through to the service and reads its non-function properties: state the plugin keeps per service (perService) is the same through it",
} as const
export type MedusaInternal = keyof typeof MEDUSA_INTERNALS

export type InternalCheck = { internal: MedusaInternal; ok: boolean; detail: string }

const SYSTEM_PROVIDER = "pp_system_default"

export async function checkMedusa(container: MedusaContainer): Promise<InternalCheck[]> {
  const results: InternalCheck[] = []
  const record = async (internal: MedusaInternal, check: () => Promise<string>) => {
    try {
      results.push({ internal, ok: true, detail: await check() })
    } catch (error) {
      results.push({ internal, ok: false, detail: error instanceof Error ? error.message : String(error) })
    }
  }
  const paymentInternals = ["payment.cradle.paymentSessionService", "payment.cradle.captureService", "payment.capture.idempotency_key", "payment.collection_refresh"] as const
  await checkPayment(container, record).catch((error: unknown) => {
    for (const internal of paymentInternals.filter((i) => !results.some((r) => r.internal === i))) {
      results.push({ internal, ok: false, detail: `the throwaway payment failed: ${error instanceof Error ? error.message : String(error)}` })
    }
  })
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  for (const read of LINK_READS) {
    const internal = (read.entity === "payment_collection" ? "link.payment_collection" : `link.${read.entity}`) as MedusaInternal
    await record(internal, async () => {
      await query.graph({ entity: read.entity, fields: [...read.fields], pagination: { take: 1 } })
      return `${read.entity} (${read.fields.join(", ")}) reads`
    })
  }
  await record("locking.table", async () => {
    const columns = await lockingTableColumns(container)
    if (!columns) return "not used by this store (no locking table)"
    const missing = ["id", "owner_id", "expiration"].filter((c) => !columns.includes(c))
    if (missing.length) throw new Error(`the locking table has no column ${missing.join(", ")}`)
    return "id, owner_id, expiration"
  })
  await record("modules.notification_instance", async () => {
    const loaded = loadedNotificationModule()
    if (!loaded) throw new Error("MedusaModule.getModuleInstance(Modules.NOTIFICATION) gave no service with createNotifications")
    if (loaded !== container.resolve(Modules.NOTIFICATION)) throw new Error("the loaded Notification Module is not the one the container holds")
    return "the same Notification Module service as the container's"
  })
  await record("modules.notification_providers", async () => {
    const loaded = loadedNotificationModule()
    if (!loaded) throw new Error("no Notification Module loaded")
    const found = await channelsWithProvider(loaded, ["feed", "email"])
    const missing = ["feed", "email"].filter((c) => !found.has(c))
    return `channels with a provider: ${[...found].join(", ") || "none"}${missing.includes("feed") ? `; ${NO_FEED_PROVIDER}` : ""}`
  })
  await record("modules.notification_update", async () => {
    const missing = "noti_payin_check_missing"
    const outcome = await markNotificationFailed(container.resolve(Modules.NOTIFICATION), missing).then(
      () => "updated",
      (error: unknown) => (error instanceof Error ? error.message : String(error))
    )
    if (!new RegExp(`${missing}.*not found|not found.*${missing}`, "i").test(outcome)) throw new Error(`updateNotifications of an unknown id: ${outcome}`)
    return "updateNotifications updates a notification by id (an unknown id: not found)"
  })
  await record("modules.workflow_container", async () => {
    const outside = perService(container.resolve(Modules.LOCKING), CHECK_STATE, () => "kept outside the workflow")
    const { result } = await moduleStateInWorkflow(container).run()
    if (result.seen !== outside) throw new Error(`a workflow step saw "${result.seen}", not the state kept on the service ("${outside}")`)
    return result.wrapped ? "a new Proxy per resolve, the service's state the same through it" : "the service itself"
  })
  return results
}

const CHECK_STATE = Symbol("payin.check_state")
const moduleStateStep = createStep("payin-check-module-state", async (_input: void, { container }) => {
  const locking = container.resolve(Modules.LOCKING)
  return new StepResponse({
    wrapped: locking !== container.resolve(Modules.LOCKING),
    seen: perService(locking, CHECK_STATE, () => "made in the workflow"),
  })
})
const moduleStateInWorkflow = createWorkflow("payin-check-module-state", () => new WorkflowResponse(moduleStateStep()))

type Recorder = (internal: MedusaInternal, check: () => Promise<string>) => Promise<void>

async function checkPayment(container: MedusaContainer, record: Recorder): Promise<void> {
  const payments = container.resolve(Modules.PAYMENT)
  // the module's cradle, as its providers get it (MedusaService keeps it as __container__)
  const cradle = (payments as { __container__?: Record<string, unknown> }).__container__
  if (!cradle) throw new Error("the payment module service has no __container__ (its providers' cradle)")
  const collection = await payments.createPaymentCollections({ currency_code: "usd", amount: 1.23 })
  try {
    const session = await payments.createPaymentSession(collection.id, { provider_id: SYSTEM_PROVIDER, currency_code: "usd", amount: 1.23, data: {} })
    await record("payment.cradle.paymentSessionService", async () => {
      const seen = await sessionOf(cradle, session.id)
      const expected = { id: session.id, amount: "1.23", currency_code: "usd", payment_collection_id: collection.id }
      if (JSON.stringify(seen) !== JSON.stringify(expected)) throw new Error(`read ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`)
      return "a session's amount, currency and collection read"
    })
    const payment = await payments.authorizePaymentSession(session.id, {})
    if (!payment) throw new Error(`${SYSTEM_PROVIDER} made no payment`)
    const provider = cradle[SYSTEM_PROVIDER] as IPaymentProvider
    let seenKey: string | undefined
    let seenTotal: string | null = null
    const original = provider.capturePayment
    provider.capturePayment = async function (this: IPaymentProvider, input: CapturePaymentInput): Promise<CapturePaymentOutput> {
      seenKey = input.context?.idempotency_key
      seenTotal = await capturedWith(cradle, seenKey)
      return original.call(this, input)
    }
    try {
      await payments.capturePayment({ payment_id: payment.id, amount: 1.23 })
    } finally {
      provider.capturePayment = original
    }
    const [capture] = await payments.listCaptures({ payment_id: payment.id }, { select: ["id"] })
    await record("payment.capture.idempotency_key", async () => {
      if (!capture || seenKey !== capture.id) throw new Error(`capturePayment got idempotency_key ${seenKey}, the capture is ${capture?.id}`)
      return "the new Capture's id"
    })
    await record("payment.cradle.captureService", async () => {
      if (seenTotal !== "1.23") throw new Error(`the captures read while capturing sum to ${seenTotal}, expected 1.23`)
      return "the captures of the payment being captured read"
    })
    await record("payment.collection_refresh", async () => {
      await refreshPaymentCollection(payments, collection.id)
      const counted = await payments.retrievePaymentCollection(collection.id, { select: ["captured_amount", "status"] })
      if (Number(counted.captured_amount) !== 1.23) throw new Error(`the collection counts ${counted.captured_amount} captured, expected 1.23`)
      return `the collection recounted: 1.23 captured, ${counted.status}`
    })
  } finally {
    await payments.deletePaymentCollections([collection.id]).catch(() => undefined)
  }
}
