import { type Span, SpanStatusCode, type Tracer, type TracerProvider, trace } from "@opentelemetry/api"
import { allowedAttributes } from "./attributes"
import { INSTRUMENTATION_SCOPE, type PayinAttributes } from "./names"

/** What a call site may do with its span: set allow-listed attributes, nothing else. */
export interface PayinSpan {
  set(attributes: PayinAttributes): void
}

const NOT_RECORDING: PayinSpan = { set: () => undefined }

let current: { provider: TracerProvider; tracer: Tracer } | undefined

// Asked again when the global provider changes (registered after the plugin loaded, or replaced):
// a tracer kept from the no-op provider would stay a no-op.
function tracer(): Tracer {
  const provider = trace.getTracerProvider()
  if (current?.provider !== provider) current = { provider, tracer: provider.getTracer(INSTRUMENTATION_SCOPE) }
  return current.tracer
}

function recording(span: Span): PayinSpan {
  return { set: (attributes) => span.setAttributes(allowedAttributes(attributes)) }
}

/**
 * Runs `work` in a span that is the active context's child (under Medusa's HTTP and workflow spans
 * when the store registered OpenTelemetry) and the parent of what `work` starts. `describe` turns
 * the result into attributes. A throw marks the span as failed with the error's class, never its
 * message. Without a registered provider this is the API's no-op.
 */
export function traced<T>(
  name: string,
  attributes: PayinAttributes,
  work: (span: PayinSpan) => Promise<T>,
  describe?: (result: T) => PayinAttributes
): Promise<T> {
  return tracer().startActiveSpan(name, async (span) => {
    const payinSpan = span.isRecording() ? recording(span) : NOT_RECORDING
    payinSpan.set(attributes)
    try {
      const result = await work(payinSpan)
      if (describe) payinSpan.set(describe(result))
      return result
    } catch (error) {
      if (span.isRecording()) {
        span.setStatus({ code: SpanStatusCode.ERROR })
        payinSpan.set({ "error.type": error instanceof Error ? error.name : "thrown" })
      }
      throw error
    } finally {
      span.end()
    }
  })
}
