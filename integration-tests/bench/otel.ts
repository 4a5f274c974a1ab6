// OpenTelemetry as a store registers it (a tracer provider with a batch span processor, a context
// manager, a meter provider with a periodic reader, both exporters no-ops that count), switched on
// and off between the rounds of one run. The plugin asks the API for its tracer and instruments
// again whenever the global provider changes (src/telemetry), so "off" is a store that registered
// nothing. Medusa's own instrumentation is left out: its tracers are fixed when first made, and
// its cost is Medusa's.
import { context, metrics, trace } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from "@opentelemetry/sdk-metrics"
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base"

export type SwitchableOtel = {
  on(): void
  off(): void
  /** Exports what the batch processor and the meter hold (not timed). */
  flush(): Promise<void>
  /** Spans handed to the exporter so far. */
  spansExported(): number
  shutdown(): Promise<void>
}

export function switchableOtel(): SwitchableOtel {
  let spans = 0
  const spanExporter: SpanExporter = {
    export: (batch, done) => {
      spans += batch.length
      done({ code: 0 })
    },
    shutdown: async () => undefined,
  }
  const metricExporter: PushMetricExporter = {
    export: (_metrics, done) => done({ code: 0 }),
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  }
  // the SDK's defaults: batches of 512 every 5 s, a queue of 2,048; metrics read every 60 s
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spanExporter)] })
  const meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: metricExporter })] })
  return {
    on() {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
      trace.setGlobalTracerProvider(tracerProvider)
      metrics.setGlobalMeterProvider(meterProvider)
    },
    off() {
      trace.disable()
      metrics.disable()
      context.disable()
    },
    async flush() {
      await tracerProvider.forceFlush()
      await meterProvider.forceFlush()
    },
    spansExported: () => spans,
    async shutdown() {
      this.off()
      await tracerProvider.shutdown()
      await meterProvider.shutdown()
    },
  }
}
