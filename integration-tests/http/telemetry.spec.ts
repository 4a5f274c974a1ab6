// The plugin's spans and metrics (src/telemetry/README.md) on a real Medusa on PostgreSQL with the
// sandbox over HTTP, OpenTelemetry registered in this process before Medusa boots the way a store's
// instrumentation.ts does (Medusa's registerOtel with its HTTP, workflow and query instrumentation),
// into an in-memory span exporter and an in-memory metric reader. One paid checkout, one order whose
// pay-in expires, and reconciliation runs: each documented span with its parent and attributes, no
// secret or shopper data in any attribute of any span, the documented metrics with their attributes.
import { registerOtel } from "@medusajs/medusa"
import { AggregationTemporality, MetricReader, type DataPoint, type MetricData } from "@opentelemetry/sdk-metrics"
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { reconcilePayins } from "../../src/money-path/reconcile"
import type { RunningSandbox } from "../../src/sandbox"
import { ATTRIBUTES, METRIC_ATTRIBUTES, METRICS, SPANS } from "../../src/telemetry/names"
import { storeSpec } from "../support/harness"
import { eventually } from "../support/medusa-process"
import { control, payinsOfSession } from "../support/sandbox"
import { Storefront } from "../support/storefront"

jest.setTimeout(180_000)

const KEY = "telemetry-key-0123456789"

/** Collects on demand (the test asks), nothing exported elsewhere. */
class InMemoryReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE })
  }
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

const exporter = new InMemorySpanExporter()
const reader = new InMemoryReader()
// what a store's instrumentation.ts does (README "Observability"), with in-memory ends
const sdk = registerOtel({
  serviceName: "payin-telemetry-spec",
  exporter,
  instrument: { http: true, workflows: true, query: true },
  metricReaders: [reader],
  autoDetectResources: false,
  logRecordProcessors: [],
})

storeSpec({ key: KEY, providerIds: ["pp_payin_default"], reloadSettings: true }, (h) => {
  let sandbox: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
  beforeEach(() => void ({ sandbox, shop, admin } = h))
  afterAll(() => sdk.shutdown())

  const spans = () => exporter.getFinishedSpans()
  const named = (name: string) => spans().filter((s) => s.name === name)
  const idOf = (s: ReadableSpan) => s.spanContext().spanId
  const parentOf = (s: ReadableSpan) => spans().find((p) => idOf(p) === s.parentSpanContext?.spanId)
  const childrenOf = (parent: ReadableSpan, name: string) => named(name).filter((s) => s.parentSpanContext?.spanId === idOf(parent))
  const ancestorsOf = (s: ReadableSpan) => {
    const chain: ReadableSpan[] = []
    for (let p = parentOf(s); p; p = parentOf(p)) chain.push(p)
    return chain
  }
  /** The one child `name` of `parent`. */
  const onlyChild = (parent: ReadableSpan, name: string) => {
    const found = childrenOf(parent, name)
    expect(found.map((s) => s.name)).toEqual([name])
    return found[0]
  }
  /** Medusa's workflow runs started inside `parent`. */
  const workflowsUnder = (parent: ReadableSpan) => spans().filter((s) => s.parentSpanContext?.spanId === idOf(parent) && s.name.startsWith("workflow:"))
  /** The webhook spans whose apply recorded `to` on the ledger row `ledgerId`. */
  const bookingThatMoved = (ledgerId: string, to: string) =>
    named(SPANS.webhookBook).filter((w) =>
      childrenOf(w, SPANS.apply).some((a) => a.attributes["payin.id"] === ledgerId && a.attributes["payin.status.to"] === to && a.attributes["payin.status.changed"])
    )

  const metricsCollected = async () => {
    const { resourceMetrics } = await reader.collect()
    return resourceMetrics.scopeMetrics.filter((s) => s.scope.name === "medusa-plugin-payin").flatMap((s) => s.metrics)
  }
  const pointsOf = (all: MetricData[], name: string) => (all.find((m) => m.descriptor.name === name)?.dataPoints ?? []) as DataPoint<any>[]
  const point = (all: MetricData[], name: string, attributes: Record<string, unknown>) =>
    pointsOf(all, name).find((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v))

  it("traces a paid checkout, an expired order and reconciliation, with the documented attributes and no secret", async () => {
    const { api } = h
    // shopper notifications on (the test app sends e-mail through Medusa's local provider): their effects run
    await api.post("/admin/payin/settings/default", { notifications: { enabled: true } }, admin)
    exporter.reset()

    // 1. one paid checkout: cart → session → complete → the sandbox pays → webhook → capture
    const cartId = await shop.cart()
    const session = await shop.session(cartId, "pp_payin_default", { method: "card" })
    const [payin] = payinsOfSession(sandbox, session.id)
    const completed = await shop.complete(cartId)
    const orderId = completed.data.order.id as string
    const email = completed.data.order.email as string
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    await h.deliver()
    const row = await h.ledger.row({ session_id: session.id })
    expect(row).toMatchObject({ status: "closed", order_id: orderId })
    expect(row.captured_at).toBeTruthy()
    await eventually("the paid notification's span", async () =>
      named(SPANS.notification).some((s) => s.attributes["payin.notification.kind"] === "paid" && s.attributes["payin.effect.outcome"] === "sent")
    )

    // the pay-in's creation: a service call under Medusa's session creation (its route and workflow spans)
    const creations = named(SPANS.service.create_payin)
    expect(creations).toHaveLength(1)
    const creation = creations[0]
    expect(creation.attributes).toEqual({
      "payin.service.operation": "create_payin",
      "payin.service.outcome": "ok",
      "payin.service.retries": 0,
      "http.response.status_code": 201,
    })
    const creationChain = ancestorsOf(creation).map((s) => s.name)
    expect(creationChain).toContain("route handler: /store/payment-collections/:id/payment-sessions")
    expect(creationChain.some((n) => n.startsWith("workflow:"))).toBe(true)

    // the closed callback: route span → payin.webhook → verify, store (answered); then its booking,
    // a root span of its own: payin.webhook.book → apply → capture → Medusa's workflows
    const stored = named(SPANS.webhook).filter((w) => childrenOf(w, SPANS.webhookStore).some((s) => s.attributes["payin.inbox.new"]))
    expect(stored.length).toBeGreaterThan(0)
    const webhook = stored[stored.length - 1]
    expect(parentOf(webhook)?.name).toBe("route handler: /hooks/payin/:id")
    expect(webhook.attributes).toEqual({ "payin.provider_id": "pp_payin_default", "payin.webhook.outcome": "stored", "http.response.status_code": 200 })
    expect(onlyChild(webhook, SPANS.webhookVerify).attributes).toEqual({ "payin.webhook.signature": "ok" })
    expect(childrenOf(webhook, SPANS.apply)).toEqual([])
    const [booking] = bookingThatMoved(row.id, "closed")
    expect(booking).toBeDefined()
    expect(parentOf(booking)).toBeUndefined()
    expect(booking.attributes).toEqual({ "payin.provider_id": "pp_payin_default", "payin.webhook.booking": "applied" })
    const apply = onlyChild(booking, SPANS.apply)
    expect(apply.attributes).toEqual({
      "payin.source": "webhook",
      "payin.id": row.id,
      "payin.status.from": "active",
      "payin.status.to": "closed",
      "payin.status.changed": true,
      "payin.effect_pending": false,
    })
    const capture = onlyChild(apply, SPANS.effect.capture)
    expect(capture.attributes).toEqual({ "payin.id": row.id, "payin.effect": "capture", "payin.effect.outcome": "done" })
    expect(workflowsUnder(capture).length).toBeGreaterThan(0)

    // the shopper's notifications: instructions when the order was placed, paid once captured
    const notifications = named(SPANS.notification).map((s) => s.attributes)
    expect(notifications).toContainEqual({
      "payin.effect": "notification",
      "payin.notification.trigger": "order.placed",
      "payin.notification.kind": "instructions",
      "payin.effect.outcome": "sent",
    })
    expect(notifications).toContainEqual({
      "payin.effect": "notification",
      "payin.notification.trigger": "payin.captured",
      "payin.notification.kind": "paid",
      "payin.effect.outcome": expect.stringMatching(/^(sent|already_sent)$/),
    })

    // 2. an order whose pay-in expires with its callback lost: reconciliation looks it up (the service
    // failing, then answering) and cancels the order
    const second = await h.placedOrder()
    const secondRow = await h.ledger.row({ session_id: second.session.id })
    sandbox.setFaults([{ route: "GET /payment/trading/{id}", status: 503 }])
    const failing = await reconcilePayins(h.getContainer(), { olderThanSeconds: 0, ids: [secondRow.id] })
    sandbox.clearFaults()
    expect(failing.errors).toBe(1)
    sandbox.updateMerchant({ webhookUrl: null })
    await control(sandbox, "POST", `/_sandbox/transactions/${second.payin.id}/expire`)
    const answered = await reconcilePayins(h.getContainer(), { olderThanSeconds: 0, ids: [secondRow.id] })
    expect(answered).toMatchObject({ checked: 1, changed: 1, errors: 0 })
    const runs = named(SPANS.reconcile).filter((s) => childrenOf(s, SPANS.service.look_up).length)
    expect(runs.map((s) => s.attributes)).toEqual([
      { "payin.reconcile.checked": 1, "payin.reconcile.changed": 0, "payin.reconcile.errors": 1, "payin.reconcile.effects_retried": 0 },
      { "payin.reconcile.checked": 1, "payin.reconcile.changed": 1, "payin.reconcile.errors": 0, "payin.reconcile.effects_retried": 0 },
    ])
    // GETs are tried three times: two retries, each answered 503
    expect(onlyChild(runs[0], SPANS.service.look_up).attributes).toEqual({
      "payin.service.operation": "look_up",
      "payin.service.outcome": "server_error",
      "payin.service.retries": 2,
      "http.response.status_code": 503,
      "error.type": "PayinServiceError",
    })
    expect(onlyChild(runs[0], SPANS.service.look_up).status.code).toBe(2) // SpanStatusCode.ERROR
    expect(onlyChild(runs[1], SPANS.service.look_up).attributes).toMatchObject({ "payin.service.outcome": "ok", "payin.service.retries": 0, "http.response.status_code": 200 })
    // the looked-up status goes through the same apply, under the run: the order's cancel under it
    const lookedUp = onlyChild(runs[1], SPANS.apply)
    expect(lookedUp.attributes).toEqual({
      "payin.source": "lookup",
      "payin.id": secondRow.id,
      "payin.status.from": "active",
      "payin.status.to": "canceled",
      "payin.status.changed": true,
      "payin.effect_pending": false,
    })
    const cancel = onlyChild(lookedUp, SPANS.effect.cancel_order)
    expect(cancel.attributes).toEqual({ "payin.id": secondRow.id, "payin.effect": "cancel_order", "payin.effect.outcome": "done" })
    expect(workflowsUnder(cancel).length).toBeGreaterThan(0)
    expect((await h.order(second.orderId, "id,status")).status).toBe("canceled")

    // every documented span was seen; plugin spans carry only allow-listed attributes
    const seen = new Set(spans().map((s) => s.name))
    for (const name of [SPANS.webhook, SPANS.webhookVerify, SPANS.webhookStore, SPANS.webhookBook, SPANS.apply, SPANS.effect.capture, SPANS.effect.cancel_order, SPANS.notification, SPANS.reconcile, SPANS.service.create_payin, SPANS.service.look_up]) {
      expect([name, seen.has(name)]).toEqual([name, true])
    }
    for (const s of spans().filter((s) => s.name.startsWith("payin."))) {
      for (const key of Object.keys(s.attributes)) expect([s.name, key, key in ATTRIBUTES]).toEqual([s.name, key, true])
    }

    // no secret, signature, requisite or shopper data in any attribute, event or status of any span (Medusa's included)
    const secondOrder = await h.order(second.orderId, "id,email")
    const secrets = [
      KEY,
      email,
      secondOrder.email,
      payin.extra.payerInfo?.ip,
      payin.extra.payerInfo?.userAgent,
      session.data.requisite.number,
      session.data.requisite.owner_name,
      ...sandbox.deliveries().map((d) => d.signature),
    ].filter((s): s is string => typeof s === "string" && s.length > 0)
    expect(secrets.length).toBeGreaterThanOrEqual(8)
    const leaks: string[] = []
    for (const s of spans()) {
      const values = [
        ...Object.values(s.attributes),
        ...s.events.flatMap((e) => Object.values(e.attributes ?? {})),
        s.status.message,
        s.name,
      ].flatMap((v) => (Array.isArray(v) ? v : [v]))
      for (const value of values.map((v) => String(v ?? ""))) {
        if (secrets.some((secret) => value.includes(secret)) || /(^|[^0-9a-f])[0-9a-f]{64}($|[^0-9a-f])/i.test(value)) {
          leaks.push(`${s.name}: ${value.slice(0, 120)}`)
        }
      }
    }
    expect(leaks).toEqual([])

    // the documented metrics, with their attributes
    const all = await metricsCollected()
    expect(all.map((m) => m.descriptor.name).sort()).toEqual(Object.values(METRICS).map((m) => m.name).sort())
    for (const m of all) {
      const documented = Object.values(METRICS).find((d) => d.name === m.descriptor.name)!
      expect([m.descriptor.name, m.descriptor.unit]).toEqual([documented.name, documented.unit])
      for (const p of m.dataPoints) {
        for (const key of Object.keys(p.attributes)) expect([m.descriptor.name, key, (METRIC_ATTRIBUTES as readonly string[]).includes(key)]).toEqual([m.descriptor.name, key, true])
      }
    }
    expect(point(all, METRICS.webhooks.name, { "payin.webhook.outcome": "stored", "payin.provider_id": "pp_payin_default" })?.value).toBeGreaterThanOrEqual(1)
    const toCapture = point(all, METRICS.webhookToCapture.name, { "payin.source": "webhook" })
    expect(toCapture?.value.count).toBe(1)
    expect(toCapture?.value.sum).toBeGreaterThan(0)
    expect(point(all, METRICS.serviceDuration.name, { "payin.service.operation": "create_payin", "payin.service.outcome": "ok" })?.value.count).toBe(2)
    expect(point(all, METRICS.serviceDuration.name, { "payin.service.operation": "look_up", "payin.service.outcome": "server_error" })?.value.count).toBe(1)
    expect(point(all, METRICS.serviceErrors.name, { "payin.service.operation": "look_up", "payin.service.outcome": "server_error" })?.value).toBe(1)
    expect(point(all, METRICS.effects.name, { "payin.effect": "capture", "payin.effect.outcome": "done" })?.value).toBe(1)
    expect(point(all, METRICS.effects.name, { "payin.effect": "cancel_order", "payin.effect.outcome": "done" })?.value).toBe(1)
    expect(point(all, METRICS.effects.name, { "payin.effect": "notification", "payin.effect.outcome": "sent" })?.value).toBeGreaterThanOrEqual(2)
    expect(point(all, METRICS.statusChanges.name, { "payin.status.from": "creating", "payin.status.to": "active" })?.value).toBe(2)
    expect(point(all, METRICS.statusChanges.name, { "payin.status.from": "active", "payin.status.to": "closed" })?.value).toBe(1)
    expect(point(all, METRICS.statusChanges.name, { "payin.status.from": "active", "payin.status.to": "canceled" })?.value).toBe(1)
  })
})
