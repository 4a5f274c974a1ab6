// The call-site API against a real SDK in memory (tracer, context manager, meter): what a span
// carries, how spans nest, what a metric records; and that without a registered SDK nothing changes.
import { SpanStatusCode, context, metrics, trace } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { AggregationTemporality, DataPointType, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import type { ServiceOperation } from "../../client/calls"
import { PayinServiceError } from "../../client/errors"
import { capturedSince, countStatusChanges, traceEffect, traceServiceCall, traceWebhook, traced } from ".."
import type { PayinAttributes } from "../names"

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE })
  }
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

const call = (operation: ServiceOperation, exchanges: number, lastStatus?: number) => ({ operation, exchanges, lastStatus })

describe("without a registered SDK", () => {
  it("runs the work and passes its result and its error through", async () => {
    await expect(traced("payin.apply", { "payin.source": "webhook" }, async () => 42)).resolves.toBe(42)
    const failure = new PayinServiceError("timeout", "late")
    await expect(traceServiceCall(call("look_up", 1), async () => Promise.reject(failure))).rejects.toBe(failure)
    expect(() => countStatusChanges([{ kind: "status", from: "active", to: "closed" }])).not.toThrow()
  })
})

describe("with a registered SDK", () => {
  const exporter = new InMemorySpanExporter()
  let reader: TestReader

  beforeEach(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
    reader = new TestReader()
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
  })
  afterEach(() => {
    exporter.reset()
    trace.disable()
    metrics.disable()
    context.disable()
  })

  const spans = () => exporter.getFinishedSpans()
  const byName = (name: string) => spans().find((s) => s.name === name)!
  const points = async (name: string) => {
    const { resourceMetrics } = await reader.collect()
    const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name)
    return metric?.dataPoints ?? []
  }

  it("nests spans under the active one and reports a failure by its class, never its message", async () => {
    await traceWebhook("default", async () => {
      await traced("payin.webhook.verify", {}, async (span) => span.set({ "payin.webhook.signature": "ok" }))
      await traced("payin.apply", { "payin.source": "webhook" }, async () => {
        await expect(
          traceEffect("capture", "payintx_01JABCDEFGHJKMNPQRSTVWXYZ0", async () => {
            throw new Error("order of shopper@payin.test could not be captured")
          })
        ).rejects.toThrow()
        return null
      })
      return "stored"
    }, () => 200)

    const root = byName("payin.webhook")
    expect(root.parentSpanContext).toBeUndefined()
    expect(root.attributes).toEqual({ "payin.webhook.outcome": "stored", "payin.provider_id": "pp_payin_default", "http.response.status_code": 200 })
    expect(byName("payin.webhook.verify").parentSpanContext?.spanId).toBe(root.spanContext().spanId)
    const apply = byName("payin.apply")
    expect(apply.parentSpanContext?.spanId).toBe(root.spanContext().spanId)
    const capture = byName("payin.effect.capture")
    expect(capture.parentSpanContext?.spanId).toBe(apply.spanContext().spanId)
    expect(capture.status).toEqual({ code: SpanStatusCode.ERROR })
    expect(capture.attributes).toEqual({
      "payin.id": "payintx_01JABCDEFGHJKMNPQRSTVWXYZ0",
      "payin.effect": "capture",
      "payin.effect.outcome": "error",
      "error.type": "Error",
    })
    expect(JSON.stringify(spans().map((s) => [s.attributes, s.events, s.status]))).not.toContain("shopper@payin.test")
  })

  it("sets only allow-listed attributes, whatever a caller passes", async () => {
    const sneaky = { "payin.source": "lookup", "x-api-key": "secret-key", "payin.id": "shopper@payin.test" } as unknown as PayinAttributes
    await traced("payin.apply", sneaky, async (span) => span.set({ "user_agent.original": "Browser/1.0" } as unknown as PayinAttributes))
    expect(byName("payin.apply").attributes).toEqual({ "payin.source": "lookup" })
  })

  it("a service call reports operation, outcome, retries and status, and records its duration and error kind", async () => {
    await traceServiceCall(call("create_payin", 1, 200), async () => "tx")
    const failure = new PayinServiceError("server", "The payment service failed", { status: 503 }, { retryable: true })
    await expect(traceServiceCall(call("look_up", 3, 503), async () => Promise.reject(failure))).rejects.toBe(failure)

    expect(byName("payin.service.create_payin").attributes).toEqual({
      "payin.service.operation": "create_payin",
      "payin.service.outcome": "ok",
      "payin.service.retries": 0,
      "http.response.status_code": 200,
    })
    expect(byName("payin.service.look_up").attributes).toMatchObject({ "payin.service.outcome": "server_error", "payin.service.retries": 2, "http.response.status_code": 503 })

    const durations = await points("payin.service.duration")
    expect(durations.map((p) => [p.attributes, (p.value as { count: number }).count])).toEqual([
      [{ "payin.service.operation": "create_payin", "payin.service.outcome": "ok" }, 1],
      [{ "payin.service.operation": "look_up", "payin.service.outcome": "server_error" }, 1],
    ])
    expect((await points("payin.service.errors")).map((p) => [p.attributes, p.value])).toEqual([
      [{ "payin.service.operation": "look_up", "payin.service.outcome": "server_error" }, 1],
    ])
  })

  it("counts webhooks, effects and status changes by their outcome, and times webhook → capture", async () => {
    await traceWebhook("not-a-configured-one", async () => "unknown_provider", () => 404)
    await traceEffect("capture", "payintx_01JABCDEFGHJKMNPQRSTVWXYZ0", async () => ({ outcome: "done" as const }))
    countStatusChanges([
      { kind: "status", from: "active", to: "closed" },
      { kind: "flag", from: "closed", to: "dispute" },
      { kind: "status", from: "active", to: "made_up" },
    ])
    capturedSince(Date.now() - 1500, "webhook")

    expect(byName("payin.webhook").attributes).toEqual({ "payin.webhook.outcome": "unknown_provider", "http.response.status_code": 404 })
    expect((await points("payin.webhooks")).map((p) => [p.attributes, p.value])).toEqual([[{ "payin.webhook.outcome": "unknown_provider" }, 1]])
    expect((await points("payin.effects")).map((p) => [p.attributes, p.value])).toEqual([[{ "payin.effect": "capture", "payin.effect.outcome": "done" }, 1]])
    expect((await points("payin.status_changes")).map((p) => [p.attributes, p.value])).toEqual([
      [{ "payin.status.from": "active", "payin.status.to": "closed" }, 1],
    ])
    const [latency] = await points("payin.webhook_to_capture.duration")
    expect(latency.attributes).toEqual({ "payin.source": "webhook" })
    expect((latency.value as { count: number; sum: number }).count).toBe(1)
    expect((latency.value as { sum: number }).sum).toBeGreaterThanOrEqual(1.5)
    const { resourceMetrics } = await reader.collect()
    const histogram = resourceMetrics.scopeMetrics[0].metrics.find((m) => m.descriptor.name === "payin.webhook_to_capture.duration")!
    expect(histogram.dataPointType).toBe(DataPointType.HISTOGRAM)
    expect(histogram.descriptor.unit).toBe("s")
  })

  it("follows a provider registered after the plugin's first span (the metrics API has no proxy)", async () => {
    metrics.disable()
    await traceEffect("cancel_order", "payintx_01JABCDEFGHJKMNPQRSTVWXYZ0", async () => ({ outcome: "done" as const }))
    const later = new TestReader()
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [later] }))
    await traceEffect("cancel_order", "payintx_01JABCDEFGHJKMNPQRSTVWXYZ0", async () => ({ outcome: "failed" as const }))
    const { resourceMetrics } = await later.collect()
    const effects = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === "payin.effects")!
    expect(effects.dataPoints.map((p) => [p.attributes, p.value])).toEqual([[{ "payin.effect": "cancel_order", "payin.effect.outcome": "failed" }, 1]])
  })
})
