import type { FlowHost } from "../../host.js";
import { traceWebhookDelivery } from "../../telemetry/webhook-spans.js";
import { receiveWebhook, type WebhookOutcome } from "../../webhooks/receive-webhook.js";
import { httpCaller } from "../request-body.js";
import { jsonAnswer } from "../route-doc.js";
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

/** `POST /:flowKind/webhooks/:provider`: verified over the exact bytes, answered before the handler runs. */
export const webhookRoute: Route<{ host: FlowHost }> = {
  method: "POST",
  path: "/:flowKind/webhooks/:provider",
  doc: {
    summary: "Receive a signed webhook delivery",
    requestBody: {
      description: "The provider's payload, any content type; its exact bytes are verified.",
      content: { "*/*": { schema: {} } },
    },
    responses: { 200: jsonAnswer("Handshake acknowledged"), 202: jsonAnswer("Dispatched or ignored") },
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
