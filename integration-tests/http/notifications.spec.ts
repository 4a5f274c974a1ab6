// Shopper notifications through Medusa's Notification Module (README "Notifications"): a real
// Medusa on PostgreSQL with the module and its local provider registered for "email" (the test
// app's config), the sandbox payment service over HTTP, the store API as a storefront.
// Off by default; switched on from the admin settings route; one notification per order and kind
// (payin.instructions, payin.paid, payin.expired) whatever is repeated.
import { Modules } from "@medusajs/framework/utils"
import { notifyCaptured, notifyExpired, notifyOrderPlaced } from "../../src/notifications/notify"
import type { RunningSandbox } from "../../src/sandbox"
import { storeSpec } from "../support/harness"
import { eventually } from "../support/medusa-process"
import { control, payinsOfSession } from "../support/sandbox"
import { Storefront } from "../support/storefront"

jest.setTimeout(180_000)

const KEY = "notifications-key-0123456789"

/** Every key of a notification's `data` (README "Notifications" documents each). */
const DATA_KEYS = [
  "amount",
  "bank",
  "currency",
  "display_id",
  "email",
  "expires_at",
  "kind",
  "method",
  "order_canceled",
  "order_id",
  "order_status_url",
  "owner_name",
  "paid_amount",
  "paid_at",
  "pay_again_until",
  "payin_id",
  "payment_page_url",
  "provider_id",
  "requisite_number",
  "sbp_link",
  "sbp_number",
]
const STATUS_URL = "https://shop.example.com/{country_code}/order/{order_id}?n={display_id}&cart={cart_id}"

storeSpec({ key: KEY, providerIds: ["pp_payin_default"], reloadSettings: true }, (h) => {
  const { api, getContainer } = h
  let sandbox: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
  beforeEach(() => void ({ sandbox, shop, admin } = h))

  const notificationModule = () => getContainer().resolve(Modules.NOTIFICATION) as any
  /** The notifications of an order (the module's rows), by kind. */
  const notificationsOf = async (orderId: string) => {
    const rows = (await notificationModule().listNotifications({ resource_id: orderId }, { take: 50 })) as any[]
    // the module stores a row as pending, then the provider's answer (success / failure)
    const of = (kind: string) => rows.filter((n) => n.idempotency_key === `payin:${kind}:${orderId}` && n.status !== "pending")
    return { all: rows, instructions: of("instructions"), paid: of("paid"), expired: of("expired") }
  }
  const orderOf = (orderId: string) => h.order(orderId, "id,display_id,email,status,payment_status")
  const ledgerRow = (sessionId: string) => h.ledger.row({ session_id: sessionId })
  const postWebhook = async (body: string) => (await h.webhook(body)).status
  const switchOn = async (notifications: Record<string, unknown> = {}) => {
    const { data } = await api.post("/admin/payin/settings/default", { notifications: { enabled: true, ...notifications } }, admin)
    return data
  }
  /**
   * An event delivered again, `times` times at once, to every subscriber of it (the plugin's
   * among them), awaited: the in-memory event bus does not await its subscribers, so its
   * listeners are called here directly (a late one would otherwise outlive the test).
   */
  const emitAgain = async (name: string, data: Record<string, unknown>, times = 3) => {
    const eventBus = getContainer().resolve(Modules.EVENT_BUS) as any
    const listeners = eventBus.eventEmitter_.listeners(name) as ((event: unknown) => Promise<void>)[]
    expect(listeners.length).toBeGreaterThan(0)
    await Promise.all(Array.from({ length: times }, () => listeners.map((l) => l({ name, data, metadata: {} }))).flat())
  }

  it("is off by default: an order placed, paid and another expired create no notification", async () => {
    const { data } = await api.get("/admin/payin/settings/default", admin)
    expect(data.values.notifications).toEqual({
      enabled: false,
      channel: "email",
      instructionsTemplate: "payin.instructions",
      paidTemplate: "payin.paid",
      expiredTemplate: "payin.expired",
    })
    expect(data.sources["notifications.enabled"]).toBe("default")

    const paid = await h.placedOrder()
    const expired = await h.placedOrder()
    await control(sandbox, "POST", `/_sandbox/transactions/${paid.payin.id}/pay`)
    await control(sandbox, "POST", `/_sandbox/transactions/${expired.payin.id}/expire`)
    await h.deliver()
    await eventually("paid captured, expired canceled", async () => {
      const [a, b] = await Promise.all([orderOf(paid.orderId), orderOf(expired.orderId)])
      return a.payment_status === "captured" && b.status === "canceled"
    })
    // the subscriber's own steps, awaited here: each finds notifications off
    expect((await notifyOrderPlaced(getContainer(), paid.orderId)).outcome).toBe("disabled")
    expect((await notifyCaptured(getContainer(), (await ledgerRow(paid.session.id)).id, "test")).outcome).toBe("disabled")
    expect(await notificationModule().listNotifications({ channel: "email" })).toEqual([])
  })

  it("the admin settings route validates, stores and returns the notification settings", async () => {
    const bad = async (notifications: Record<string, unknown>) => {
      const res = await api.post("/admin/payin/settings/default", { notifications }, admin).catch((e: any) => e.response)
      expect(res.status).toBe(400)
      return res.data.fields.map((f: { path: string }) => f.path)
    }
    expect(await bad({ orderStatusUrl: "https://shop.example.com/order/{id}" })).toEqual(["notifications.orderStatusUrl"])
    expect(await bad({ orderStatusUrl: "ftp://shop.example.com/{order_id}" })).toEqual(["notifications.orderStatusUrl"])
    expect(await bad({ orderStatusUrl: "https://shop.example.com/{order_id" })).toEqual(["notifications.orderStatusUrl"])
    expect(await bad({ channel: "e mail" })).toEqual(["notifications.channel"])
    expect(await bad({ enabled: "yes" })).toEqual(["notifications.enabled"])
    expect(await bad({ paidTemplate: 5 })).toEqual(["notifications.paidTemplate"])
    expect(await bad({ sender: "shop@example.com" })).toEqual(["notifications"])

    const saved = await switchOn({ channel: "email", paidTemplate: "order-paid", orderStatusUrl: STATUS_URL })
    expect(saved.values.notifications).toEqual({
      enabled: true,
      channel: "email",
      instructionsTemplate: "payin.instructions",
      paidTemplate: "order-paid",
      expiredTemplate: "payin.expired",
      orderStatusUrl: STATUS_URL,
    })
    expect(saved.sources).toMatchObject({
      notifications: "admin",
      "notifications.enabled": "admin",
      "notifications.paidTemplate": "admin",
      "notifications.expiredTemplate": "default",
      "notifications.orderStatusUrl": "admin",
    })
    // a field set back to null returns to medusa-config / the default
    const reset = await api.post("/admin/payin/settings/default", { notifications: { paidTemplate: null } }, admin)
    expect(reset.data.values.notifications.paidTemplate).toBe("payin.paid")
    expect(reset.data.sources["notifications.paidTemplate"]).toBe("default")
    const all = await api.get("/admin/payin/settings", admin)
    expect(all.data.providers[0].values.notifications.enabled).toBe(true)

    // as the admin form saves: with the revision it read, again and again; a stale one is refused
    let revision = all.data.providers[0].revision
    expect(revision).toBeGreaterThan(1)
    for (const expiredTemplate of ["order-expired", "order-expired-2"]) {
      const saved = await api.post("/admin/payin/settings/default", { notifications: { expiredTemplate }, revision }, admin)
      expect([saved.status, saved.data.values.notifications.expiredTemplate, saved.data.revision]).toEqual([200, expiredTemplate, revision + 1])
      revision = saved.data.revision
    }
    const stale = await api
      .post("/admin/payin/settings/default", { notifications: { enabled: false }, revision: revision - 1 }, admin)
      .catch((e: any) => e.response)
    expect([stale.status, stale.data.code]).toEqual([409, "settings_conflict"])
  })

  it("order placed awaiting → one payin.instructions with the documented data; paid → one payin.paid; repeats change nothing", async () => {
    await switchOn({ orderStatusUrl: STATUS_URL })
    const cartId = await shop.cart()
    const session = await shop.session(cartId, "pp_payin_default", { method: "qr" })
    const [tx] = payinsOfSession(sandbox, session.id)
    const orderId = (await shop.complete(cartId)).data.order.id as string
    const order = await orderOf(orderId)
    expect(order.payment_status).toBe("awaiting")

    const [instructions] = (await eventually("payin.instructions created", async () => {
      const n = await notificationsOf(orderId)
      return n.instructions.length ? n.instructions : null
    })) as any[]
    const row = await ledgerRow(session.id)
    expect(instructions).toMatchObject({
      to: order.email,
      channel: "email",
      template: "payin.instructions",
      resource_type: "order",
      resource_id: orderId,
      trigger_type: "order.placed",
      status: "success",
    })
    expect(Object.keys(instructions.data).sort()).toEqual(DATA_KEYS)
    expect(instructions.data).toEqual({
      kind: "instructions",
      order_id: orderId,
      display_id: order.display_id,
      email: order.email,
      amount: "1790.00",
      currency: "RUB",
      paid_amount: null,
      method: "qr",
      bank: tx.requisite.bank,
      requisite_number: tx.requisite.requisites,
      owner_name: tx.requisite.ownerName,
      sbp_number: tx.requisite.sbpNumber,
      sbp_link: tx.requisite.requisites,
      payment_page_url: expect.stringContaining(sandbox.url),
      expires_at: new Date(row.expires_at).toISOString(),
      paid_at: null,
      order_status_url: `https://shop.example.com/ru/order/${orderId}?n=${order.display_id}&cart=${cartId}`,
      order_canceled: false,
      pay_again_until: null,
      provider_id: "pp_payin_default",
      payin_id: tx.id,
    })
    expect(instructions.data.requisite_number).toMatch(/^https:\/\/qr\.nspk\.ru\//)
    expect(JSON.stringify(instructions)).not.toContain(KEY)

    // order.placed again (a re-delivery), concurrently, and the subscriber's step itself: still one
    await emitAgain("order.placed", { id: orderId })
    const again = await Promise.all([1, 2, 3].map(() => notifyOrderPlaced(getContainer(), orderId)))
    expect(again.map((r) => r.outcome)).toEqual(["already_sent", "already_sent", "already_sent"])

    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
    await h.deliver()
    const [paid] = (await eventually("payin.paid created", async () => {
      const n = await notificationsOf(orderId)
      return n.paid.length ? n.paid : null
    })) as any[]
    const closed = await ledgerRow(session.id)
    expect(paid).toMatchObject({ to: order.email, channel: "email", template: "payin.paid", status: "success" })
    expect(["payin.captured", "payment.captured", "order.placed"]).toContain(paid.trigger_type)
    expect(paid.data).toMatchObject({
      kind: "paid",
      order_id: orderId,
      amount: "1790.00",
      paid_amount: "1790.00",
      currency: "RUB",
      bank: tx.requisite.bank,
      requisite_number: null,
      owner_name: null,
      sbp_number: null,
      sbp_link: null,
      payment_page_url: null,
      paid_at: new Date(closed.paid_at).toISOString(),
      order_canceled: false,
      pay_again_until: null,
    })
    expect(Object.keys(paid.data).sort()).toEqual(DATA_KEYS)

    // the callback delivered again three times, order.placed and payin.captured emitted again
    const callback = JSON.stringify(sandbox.transaction(tx.id))
    expect(await Promise.all([postWebhook(callback), postWebhook(callback), postWebhook(callback)])).toEqual([200, 200, 200])
    await emitAgain("order.placed", { id: orderId })
    await emitAgain("payin.captured", { id: closed.id })
    const repeats = await Promise.all([
      notifyCaptured(getContainer(), closed.id, "test"),
      notifyCaptured(getContainer(), closed.id, "test"),
      notifyOrderPlaced(getContainer(), orderId),
    ])
    expect(repeats.map((r) => [r.kind, r.outcome])).toEqual([
      ["paid", "already_sent"],
      ["paid", "already_sent"],
      ["paid", "already_sent"],
    ])
    const final = await notificationsOf(orderId)
    expect([final.instructions.length, final.paid.length, final.expired.length, final.all.length]).toEqual([1, 1, 0, 2])
  })

  it("window ended unpaid → one payin.expired (order canceled), repeats change nothing", async () => {
    await switchOn()
    const { orderId, payin: tx, session } = await h.placedOrder()
    await eventually("payin.instructions created", async () => (await notificationsOf(orderId)).instructions.length === 1)

    await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
    await control(sandbox, "GET", `/_sandbox/transactions/${tx.id}`) // expiry is applied on read
    await h.deliver()
    const [expired] = (await eventually("payin.expired created", async () => {
      const n = await notificationsOf(orderId)
      return n.expired.length ? n.expired : null
    })) as any[]
    const order = await orderOf(orderId)
    expect(order.status).toBe("canceled")
    expect(expired).toMatchObject({ to: order.email, template: "payin.expired", trigger_type: "payin.expired", status: "success" })
    expect(expired.data).toMatchObject({
      kind: "expired",
      order_id: orderId,
      amount: "1790.00",
      currency: "RUB",
      requisite_number: null,
      payment_page_url: null,
      paid_amount: null,
      order_canceled: true,
      pay_again_until: null,
      order_status_url: null, // no template configured
      expires_at: new Date((await ledgerRow(session.id)).expires_at).toISOString(),
    })

    const canceled = JSON.stringify(sandbox.transaction(tx.id))
    expect(await Promise.all([postWebhook(canceled), postWebhook(canceled)])).toEqual([200, 200])
    await emitAgain("payin.expired", { id: (await ledgerRow(session.id)).id })
    await emitAgain("order.placed", { id: orderId })
    expect((await notifyOrderPlaced(getContainer(), orderId)).outcome).toBe("skipped") // canceled: no instructions again
    const final = await notificationsOf(orderId)
    expect([final.instructions.length, final.paid.length, final.expired.length]).toEqual([1, 0, 1])
  })

  it("soak seed 1: a pay-in whose session Medusa never saved (its creation failed after the service made it) holds back neither the order's end nor payin.expired", async () => {
    await switchOn()
    const { orderId, payin: tx, session } = await h.placedOrder()
    const real = await ledgerRow(session.id)
    // what a session creation failing after the service answered leaves: a live pay-in of the
    // collection, a minute old, whose session Medusa does not hold
    // one statement: the pool may answer each query on another connection
    await h.sql(
      `insert into payin_transaction
         select (jsonb_populate_record(null::payin_transaction, to_jsonb(t) || jsonb_build_object(
           'id', 'payintx_lost_session', 'session_id', 'payses_never_saved', 'service_id', gen_random_uuid()::text, 'order_id', null,
           'created_at', now() - interval '2 minutes', 'expires_at', now() + interval '1 hour'))).*
         from payin_transaction t where t.id = ?`,
      [real.id]
    )

    await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
    await control(sandbox, "GET", `/_sandbox/transactions/${tx.id}`) // expiry is applied on read
    await h.deliver()
    // before: the lost pay-in counted as the order's payable one: no cancel, no payin.expired
    await eventually("payin.expired created", async () => (await notificationsOf(orderId)).expired.length === 1)
    expect((await orderOf(orderId)).status).toBe("canceled")
    const lost = await h.ledger.row({ id: "payintx_lost_session" })
    expect(lost.session_deleted_at).toBeTruthy()
    const history = (await api.get(`/admin/payin/transactions/${lost.id}`, admin)).data.history
    expect(history.map((x: any) => x.note)).toContain("payment session not held by Medusa (its creation failed after the pay-in was made)")
  })

  it("soak seed 1 (30 minutes): an order's expired pay-in whose session Medusa deleted before the notification ran (pay again's new session) still gets payin.expired", async () => {
    const { orderId, payin: tx, session } = await h.placedOrder()
    await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
    await control(sandbox, "GET", `/_sandbox/transactions/${tx.id}`) // expiry is applied on read
    await h.deliver() // notifications off: nothing sent yet
    const row = await ledgerRow(session.id)
    expect([row.status, row.order_id]).toEqual(["canceled", orderId])
    await switchOn()
    // what pay again's new session has Medusa do to the old one before payin.expired is handled
    await h.sql("update payin_transaction set session_deleted_at = now() where id = ?", [row.id])
    await (getContainer().resolve(Modules.PAYMENT) as any).deletePaymentSession(session.id)
    // before: the order was found only through the deleted session: skipped
    expect(await notifyExpired(getContainer(), row.id, "payin.expired")).toMatchObject({ kind: "expired", outcome: "sent", order_id: orderId })
    expect((await notificationsOf(orderId)).expired).toHaveLength(1)
  })

  it("a channel without a provider: the notifications fail (stored as failure), the money path does not; retries keep one row", async () => {
    await switchOn({ channel: "sms" }) // the test app registers a provider for "feed" and "email" only
    const { orderId, payin: tx, session } = await h.placedOrder()
    const failedInstructions = await notifyOrderPlaced(getContainer(), orderId) // as the subscriber does
    expect(failedInstructions).toMatchObject({ kind: "instructions", outcome: "failed" })
    expect(failedInstructions.error).toMatch(/Could not find a notification provider for channel: sms/)
    await eventually("payin.instructions stored as failed", async () => (await notificationsOf(orderId)).instructions.length === 1)

    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
    await h.deliver()
    await eventually("captured in spite of the failing notifications", async () => (await orderOf(orderId)).payment_status === "captured")
    const row = await ledgerRow(session.id)
    expect([row.status, Boolean(row.captured_at), row.effect_pending]).toEqual(["closed", true, null])
    await eventually("payin.paid stored as failed", async () => (await notificationsOf(orderId)).paid.length === 1)
    // the retried event (the Redis event bus runs the subscriber again): the same row is sent again
    await emitAgain("payin.captured", { id: row.id })
    const final = await notificationsOf(orderId)
    expect(final.all.map((n: any) => [n.idempotency_key, n.channel, n.status]).sort()).toEqual([
      [`payin:instructions:${orderId}`, "sms", "failure"],
      [`payin:paid:${orderId}`, "sms", "failure"],
    ])
  })

  it("paid before the order was placed → payin.paid only, never instructions", async () => {
    await switchOn()
    const cartId = await shop.cart()
    const session = await shop.session(cartId, "pp_payin_default")
    const [tx] = payinsOfSession(sandbox, session.id)
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
    await h.deliver()
    const row = await eventually("the webhook placed and captured the order", async () => {
      const r = await ledgerRow(session.id)
      return r.order_id && r.captured_at ? r : null
    })
    const orderId = row.order_id as string
    await eventually("payin.paid created", async () => (await notificationsOf(orderId)).paid.length === 1)
    // the storefront completes the cart afterwards (same order), and order.placed comes again
    expect((await shop.complete(cartId)).data.order.id).toBe(orderId)
    await emitAgain("order.placed", { id: orderId })
    const placed = await notifyOrderPlaced(getContainer(), orderId)
    expect([placed.kind, placed.outcome]).toEqual(["paid", "already_sent"])
    const final = await notificationsOf(orderId)
    expect([final.instructions.length, final.paid.length, final.expired.length]).toEqual([0, 1, 0])
    expect(final.paid[0].data).toMatchObject({ kind: "paid", order_id: orderId, paid_amount: "1790.00", requisite_number: null })
  })
})
