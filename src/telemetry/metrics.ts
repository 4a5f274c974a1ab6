import { type Counter, type Histogram, type MeterProvider, metrics } from "@opentelemetry/api"
import { allowedAttributes } from "./attributes"
import { INSTRUMENTATION_SCOPE, METRICS, type MetricAttributes } from "./names"

type Instruments = {
  webhooks: Counter
  webhookToCapture: Histogram
  serviceDuration: Histogram
  serviceErrors: Counter
  effects: Counter
  statusChanges: Counter
}

let current: { provider: MeterProvider; instruments: Instruments } | undefined

// The metrics API has no proxy: instruments made before the store registered its provider would
// stay no-ops, so they are made again whenever the global provider changes.
function instruments(): Instruments {
  const provider = metrics.getMeterProvider()
  if (current?.provider !== provider) {
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE)
    const counter = (m: { name: string; unit: string; description: string }) => meter.createCounter(m.name, { unit: m.unit, description: m.description })
    const histogram = (m: { name: string; unit: string; description: string; buckets: readonly number[] }) =>
      meter.createHistogram(m.name, { unit: m.unit, description: m.description, advice: { explicitBucketBoundaries: [...m.buckets] } })
    current = {
      provider,
      instruments: {
        webhooks: counter(METRICS.webhooks),
        webhookToCapture: histogram(METRICS.webhookToCapture),
        serviceDuration: histogram(METRICS.serviceDuration),
        serviceErrors: counter(METRICS.serviceErrors),
        effects: counter(METRICS.effects),
        statusChanges: counter(METRICS.statusChanges),
      },
    }
  }
  return current.instruments
}

const only = (attributes: MetricAttributes) => allowedAttributes(attributes, "metric")

export const record = {
  webhook: (attributes: Required<Pick<MetricAttributes, "payin.webhook.outcome">> & Pick<MetricAttributes, "payin.provider_id">) =>
    instruments().webhooks.add(1, only(attributes)),
  webhookToCapture: (seconds: number, attributes: Pick<MetricAttributes, "payin.source">) =>
    instruments().webhookToCapture.record(Math.max(0, seconds), only(attributes)),
  serviceCall: (seconds: number, attributes: Required<Pick<MetricAttributes, "payin.service.operation" | "payin.service.outcome">>) => {
    const { serviceDuration, serviceErrors } = instruments()
    serviceDuration.record(seconds, only(attributes))
    if (attributes["payin.service.outcome"] !== "ok") serviceErrors.add(1, only(attributes))
  },
  effect: (attributes: Required<Pick<MetricAttributes, "payin.effect" | "payin.effect.outcome">>) => instruments().effects.add(1, only(attributes)),
  statusChange: (attributes: Required<Pick<MetricAttributes, "payin.status.from" | "payin.status.to">>) =>
    instruments().statusChanges.add(1, only(attributes)),
}
