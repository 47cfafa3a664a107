/**
 * The telemetry variants of the HTTP benchmark's flowrt server (`HTTP_TELEMETRY`, see README): `api` is the
 * default server, the OpenTelemetry API with no SDK registered; `sdk` registers the trace and metrics SDKs as an
 * application would (AsyncLocalStorage context, W3C propagation, batch span processor, periodic metric reader)
 * with exporters that drop what they are given; `sdk-stores` adds the host's `telemetry.storeSpans`; `access-log` is
 * the default server with the engine's access line on (JSON lines at `info` to `/dev/null`, see `http-flowrt-app.ts`).
 */
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { type ExportResult, ExportResultCode, W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";

export const TELEMETRY_VARIANTS = ["api", "sdk", "sdk-stores", "access-log"] as const;
export type TelemetryVariant = (typeof TELEMETRY_VARIANTS)[number];

const done = (callback: (result: ExportResult) => void) => callback({ code: ExportResultCode.SUCCESS });

const dropSpans: SpanExporter = {
  export: (_spans, callback) => done(callback),
  shutdown: async () => {},
};

const dropMetrics: PushMetricExporter = {
  export: (_metrics, callback) => done(callback),
  forceFlush: async () => {},
  shutdown: async () => {},
};

/** Registers the SDKs for `sdk` and `sdk-stores` (before the host is made); `api` and `access-log` register nothing. */
export function registerTelemetry(variant: TelemetryVariant): void {
  if (variant === "api" || variant === "access-log") return;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: dropSpans })] }),
  );
  metrics.setGlobalMeterProvider(
    new MeterProvider({
      readers: [new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 10_000 })],
    }),
  );
}

export function telemetryVariant(value: string | undefined): TelemetryVariant {
  const variant = (value ?? "api") as TelemetryVariant;
  if (!TELEMETRY_VARIANTS.includes(variant))
    throw new Error(`telemetry variant "${value}" is none of ${TELEMETRY_VARIANTS.join(", ")}`);
  return variant;
}
