import type { TelemetryOptions } from "ai";

/**
 * `createFlowHost({ telemetry })`. Spans and metrics need no option: they go to the globally registered
 * OpenTelemetry providers (none registered: the API's no-ops). These settings add what costs more or belongs to
 * another library.
 *
 * @example
 * ```ts
 * import { OpenTelemetry } from "@ai-sdk/otel";
 * createFlowHost({ flows, stores, telemetry: { ai: { integrations: [new OpenTelemetry()], recordInputs: false } } });
 * ```
 */
export interface HostTelemetryOptions {
  /**
   * Handed to the AI SDK as the `telemetry` setting (formerly `experimental_telemetry`) of every generator block's
   * model call, with `functionId` defaulting to the block's name. The AI SDK's spans (from `@ai-sdk/otel`, given
   * here in `integrations` or registered with `registerTelemetry`) nest under the generator's block span.
   * @default none: the AI SDK's own defaults and globally registered integrations apply
   */
  ai?: TelemetryOptions;
  /**
   * A span per store call (`store {area}.{method}`), under the span that made it. Off by default: an action makes
   * tens of store calls, and a Postgres store is usually traced by the `pg` instrumentation already.
   * @default false
   */
  storeSpans?: boolean;
}
