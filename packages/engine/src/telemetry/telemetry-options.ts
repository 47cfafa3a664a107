/**
 * The AI SDK's `telemetry` setting of a model call (its `TelemetryOptions`), typed here by its shape so that the
 * engine's types need no `ai` installed; the settings are handed to the SDK as they are.
 */
export interface AiTelemetrySettings {
  /** Whether the AI SDK records telemetry. @default enabled when an integration is registered */
  isEnabled?: boolean;
  /** Whether inputs (prompts, tool inputs) are recorded. @default true */
  recordInputs?: boolean;
  /** Whether outputs (text, tool results) are recorded. @default true */
  recordOutputs?: boolean;
  /** Groups the telemetry of one function. @default the generator block's name */
  functionId?: string;
  /** Telemetry integrations for these calls, such as `new OpenTelemetry()` from `@ai-sdk/otel`. */
  integrations?: unknown;
  /** Any other setting of the AI SDK's `TelemetryOptions`, passed on unchanged. */
  [setting: string]: unknown;
}

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
  ai?: AiTelemetrySettings;
  /**
   * A span per store call (`store {area}.{method}`), under the span that made it. Off by default: an action makes
   * tens of store calls, and a Postgres store is usually traced by the `pg` instrumentation already.
   * @default false
   */
  storeSpans?: boolean;
}
