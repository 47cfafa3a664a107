import type { FlowHost } from "../../host.js";
import { traceWebhookDelivery } from "../../telemetry/webhook-spans.js";
import { receiveWebhook, type WebhookOutcome } from "../../webhooks/receive-webhook.js";
import { pascal } from "../openapi-schemas.js";
import { httpCaller } from "../request-body.js";
import { jsonAnswer, type RouteOperation, type UniqueOperationId } from "../route-doc.js";
import type { Route } from "../router.js";
import { type HttpResponse, json } from "../types.js";

/** A delivery's outcome as the specification answers it: 202 accepted or ignored, 200 a handshake, else a problem. */
function webhookResponse(outcome: WebhookOutcome): HttpResponse {
  switch (outcome.kind) {
    case "accepted":
      return json(202, { requestId: outcome.requestId });
    case "ignored":
      return json(202, { ignored: true, reason: outcome.reason });
    case "acknowledged":
      return json(200, outcome.body);
    case "refused":
      throw outcome.error;
  }
}

/**
 * One operation per provider a flow kind subscribes to (`POST /payments/webhooks/stripe`,
 * `receivePaymentsStripeWebhook`). No principal resolver runs: the delivery is authenticated by its signature.
 */
function webhookOperations(host: FlowHost, unique: UniqueOperationId): RouteOperation[] {
  const seen = new Set<string>();
  return host.registry.flows.flatMap((flow) => {
    if (seen.has(flow.kind)) return [];
    seen.add(flow.kind);
    // The bound event types stay out of it: what a flow does with a delivery is the application's own.
    return Object.keys(flow.definition.webhooks).map((provider) => ({
      params: { flowKind: flow.kind, provider },
      operationId: unique(`receive${pascal(flow.kind)}${pascal(provider)}Webhook`),
      summary: `Receive a ${provider} delivery for ${flow.kind}`,
      description:
        `Authenticated by the provider's signature, not by the principal resolver: the host's ` +
        `\`webhookProviders.${provider}.verify\` checks the exact bytes of the body against the signature header ` +
        `the provider sends (401 webhook-verification-failed when it does not match). A delivery of an event ` +
        `type the flow does not bind is answered 202 ignored.`,
      flow,
    }));
  });
}

/** `POST /:flowKind/webhooks/:provider`: verified over the exact bytes, answered before the handler runs. */
export const webhookRoute: Route<{ host: FlowHost }> = {
  method: "POST",
  path: "/:flowKind/webhooks/:provider",
  doc: {
    operationId: "receiveWebhook",
    auth: "signature",
    tag: "Webhooks",
    summary: "Receive a signed webhook delivery",
    operations: webhookOperations,
    requestBody: {
      description: "The provider's payload, any content type; its exact bytes are verified.",
      content: { "*/*": { schema: {} } },
    },
    responses: {
      200: jsonAnswer("Handshake acknowledged: the provider's `acknowledge` answer; nothing dispatched", {}),
      202: jsonAnswer("Dispatched (the request that runs it) or ignored (no binding, or `when` said no)", {
        oneOf: [
          { type: "object", required: ["requestId"], properties: { requestId: { type: "string" } } },
          {
            type: "object",
            required: ["ignored", "reason"],
            properties: { ignored: { const: true }, reason: { type: "string" } },
          },
        ],
      }),
    },
    errors: [400, 401, 404, 413, 503],
  },
  handler: async (req, { flowKind, provider }, { host }) => {
    // The HTTP caller with the exact bytes and the headers set on it (not spread into a new object, which
    // would give every delivery's caller an object shape of its own).
    const caller = Object.assign(httpCaller(req), {
      rawBody: req.rawBody ?? new Uint8Array(),
      headers: req.headers,
    });
    return webhookResponse(
      await traceWebhookDelivery(flowKind!, provider!, () =>
        receiveWebhook(host, flowKind!, provider!, caller),
      ),
    );
  },
};

/** The webhook routes (one). */
export const webhookRoutes: Route<{ host: FlowHost }>[] = [webhookRoute];
