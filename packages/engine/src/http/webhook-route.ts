import type { FlowHost } from "../host.js";
import { receiveWebhook } from "../webhooks/receive-webhook.js";
import { httpCaller } from "./request-body.js";
import type { Route } from "./router.js";
import { json } from "./types.js";

/** `POST /:flowKind/webhooks/:provider`: verified over the exact bytes, answered before the handler runs. */
export const webhookRoute: Route<{ host: FlowHost }> = {
  method: "POST",
  path: "/:flowKind/webhooks/:provider",
  handler: async (req, { flowKind, provider }, { host }) => {
    // The HTTP caller with the exact bytes and the headers set on it (not spread into a new object, which
    // would give every delivery's caller an object shape of its own).
    const caller = Object.assign(httpCaller(req), {
      rawBody: req.rawBody ?? new Uint8Array(),
      headers: req.headers,
    });
    const outcome = await receiveWebhook(host, flowKind!, provider!, caller);
    return json(outcome.status, outcome.body);
  },
};
