import { type Attributes, context, type Tracer, trace } from "@opentelemetry/api";
import { type EngineMetrics, engineMetrics, engineTracer, NO_TRACER } from "./instruments.js";
import { errorTypeOf, recordSpanError } from "./span-error.js";

/** The outcomes `flowrt.webhook.deliveries` counts (the pipeline's `WebhookOutcome` kinds). */
export type DeliveryOutcome = "accepted" | "ignored" | "acknowledged" | "refused";

/**
 * Runs one webhook delivery through the pipeline in a span `webhook {provider}` (`flowrt.webhook.provider`,
 * `flowrt.flow.kind`, `flowrt.webhook.outcome`), and counts it in `flowrt.webhook.deliveries` by provider and
 * outcome. A pipeline that throws (a store failure: the provider will retry) counts as `refused` with the
 * failure's `error.type`; a refusal's own code is `error.type` too.
 */
export function traceWebhookDelivery<T extends { kind: DeliveryOutcome; error?: unknown }>(
  flowKind: string,
  provider: string,
  receive: () => Promise<T>,
): Promise<T> {
  const meters = engineMetrics();
  const tracer = engineTracer();
  if (tracer === undefined && !meters.enabled) return receive();
  return tracedDelivery(tracer ?? NO_TRACER, meters, flowKind, provider, receive);
}

async function tracedDelivery<T extends { kind: DeliveryOutcome; error?: unknown }>(
  tracer: Tracer,
  meters: EngineMetrics,
  flowKind: string,
  provider: string,
  receive: () => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(`webhook ${provider}`);
  let outcome: DeliveryOutcome = "refused";
  let errorType: string | undefined;
  try {
    const result = trace.isSpanContextValid(span.spanContext())
      ? await context.with(trace.setSpan(context.active(), span), receive)
      : await receive();
    outcome = result.kind;
    if (result.kind === "refused") errorType = errorTypeOf(result.error);
    return result;
  } catch (error) {
    errorType = errorTypeOf(error);
    recordSpanError(span, error);
    throw error;
  } finally {
    if (span.isRecording()) {
      span.setAttribute("flowrt.webhook.provider", provider);
      span.setAttribute("flowrt.flow.kind", flowKind);
      span.setAttribute("flowrt.webhook.outcome", outcome);
      if (errorType !== undefined) span.setAttribute("error.type", errorType);
    }
    span.end();
    if (meters.enabled) {
      const attributes: Attributes = {
        "flowrt.webhook.provider": provider,
        "flowrt.webhook.outcome": outcome,
      };
      if (errorType !== undefined) attributes["error.type"] = errorType;
      meters.webhookDeliveries.add(1, attributes);
    }
  }
}

/**
 * Runs a provider's `verify` in a span `webhook verify {provider}` with its answer (`flowrt.webhook.verified`). A
 * verifier that throws is recorded by its error's type only: its message may quote the signature or the secret.
 */
export function traceWebhookVerify(
  provider: string,
  verify: () => boolean | Promise<boolean>,
): boolean | Promise<boolean> {
  const tracer = engineTracer();
  if (tracer === undefined) {
    // No SDK: the verifier's own answer (a synchronous one stays synchronous).
    const answer = verify();
    return typeof answer === "boolean"
      ? answer
      : Promise.resolve(answer).then((verified) => verified === true);
  }
  return tracedVerify(tracer, provider, verify);
}

async function tracedVerify(
  tracer: Tracer,
  provider: string,
  verify: () => boolean | Promise<boolean>,
): Promise<boolean> {
  const span = tracer.startSpan(`webhook verify ${provider}`);
  try {
    const verified = (await verify()) === true;
    if (span.isRecording()) {
      span.setAttribute("flowrt.webhook.provider", provider);
      span.setAttribute("flowrt.webhook.verified", verified);
    }
    return verified;
  } catch (error) {
    if (span.isRecording()) span.setAttribute("flowrt.webhook.provider", provider);
    recordSpanError(span, error);
    throw error;
  } finally {
    span.end();
  }
}
