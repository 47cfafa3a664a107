import type { FlowHost } from "../host/flow-host.js";
import { receiveWebhook } from "../webhooks/receive-webhook.js";
import { httpCaller } from "./request-body.js";
import type { Route } from "./router.js";
import { json } from "./types.js";

/** `POST /:flowKind/webhooks/:provider`: verified over the exact bytes, answered before the handler runs. */
export const webhookRoute: Route<{ host: FlowHost }> = {
  method: "POST",
  path: "/:flowKind/webhooks/:provider",
  handler: async (req, { flowKind, provider }, { host }) => {
    const rawBody = req.rawBody ?? new Uint8Array();
    const outcome = await receiveWebhook(host, flowKind!, provider!, {
      ...httpCaller(req),
      rawBody,
      headers: req.headers,
    });
    return json(outcome.status, outcome.body);
  },
};
