import {
  type Counter,
  createNoopMeter,
  type Histogram,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  type Tracer,
  type TracerProvider,
  trace,
  type UpDownCounter,
} from "@opentelemetry/api";

/** The instrumentation scope of every span and metric the engine makes. */
export const INSTRUMENTATION_SCOPE = "@flowrt/engine";

/** The metrics the engine records (names and units in the README's "Telemetry" section). */
export interface EngineMetrics {
  /** False while no meter provider is registered: callers skip building attributes for no-op instruments. */
  readonly enabled: boolean;
  /** `http.server.request.duration`, seconds, by method, route, status (HTTP semantic conventions). */
  readonly requestDuration: Histogram;
  /** `flowrt.runs.active`: action runs executing on this host, by flow kind. */
  readonly runsInFlight: UpDownCounter;
  /** `flowrt.webhook.deliveries`: deliveries by provider and outcome. */
  readonly webhookDeliveries: Counter;
  /** `flowrt.cas.retries`: compare-and-swap tries that lost their race and were made again. */
  readonly casRetries: Counter;
}

/** The semantic conventions' advice for `http.server.request.duration` (seconds). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

let tracerOf: { provider: TracerProvider; tracer: Tracer } | undefined;
let metricsOf: { provider: MeterProvider; metrics: EngineMetrics } | undefined;

/** What a proxy answers while no SDK has registered a provider: the API's no-op provider. */
const NO_TRACER_PROVIDER: TracerProvider = new ProxyTracerProvider().getDelegate();

/** The API's no-op tracer: what a metrics-only wrapper starts its (non-recording) span with. */
export const NO_TRACER: Tracer = NO_TRACER_PROVIDER.getTracer(INSTRUMENTATION_SCOPE);

/**
 * The engine's tracer, or `undefined` while no tracer provider is registered: with no SDK the engine makes no
 * span at all (the API's non-recording spans would cost an object, a context lookup and an id check each). The
 * global proxy and its delegate are read on every call (two property reads and a version check), so an SDK
 * registered after the host was created, or a test that registers and disables providers in turn, is followed;
 * the tracer itself is made only when the registered provider changed. A provider registered through another
 * copy of the API is not recognised as the no-op one and is traced as before.
 */
export function engineTracer(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  if (provider instanceof ProxyTracerProvider && provider.getDelegate() === NO_TRACER_PROVIDER)
    return undefined;
  if (tracerOf === undefined || tracerOf.provider !== provider)
    tracerOf = { provider, tracer: provider.getTracer(INSTRUMENTATION_SCOPE) };
  return tracerOf.tracer;
}

/**
 * The engine's instruments, made once per registered meter provider. The metrics API has no proxy as the trace
 * API has: instruments made before an SDK registers would stay no-ops, so the provider is looked up on each use
 * and the instruments made again when it changed.
 */
export function engineMetrics(): EngineMetrics {
  const provider = metrics.getMeterProvider();
  if (metricsOf === undefined || metricsOf.provider !== provider)
    metricsOf = { provider, metrics: makeMetrics(provider) };
  return metricsOf.metrics;
}

function makeMetrics(provider: MeterProvider): EngineMetrics {
  const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
  return {
    enabled: meter !== createNoopMeter(),
    requestDuration: meter.createHistogram("http.server.request.duration", {
      description: "Duration of HTTP server requests.",
      unit: "s",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    runsInFlight: meter.createUpDownCounter("flowrt.runs.active", {
      description: "Action runs executing on this host.",
      unit: "{run}",
    }),
    webhookDeliveries: meter.createCounter("flowrt.webhook.deliveries", {
      description: "Webhook deliveries received, by outcome.",
      unit: "{delivery}",
    }),
    casRetries: meter.createCounter("flowrt.cas.retries", {
      description: "Compare-and-swap writes that lost their race and were tried again.",
      unit: "{retry}",
    }),
  };
}
