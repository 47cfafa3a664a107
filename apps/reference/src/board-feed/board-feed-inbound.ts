import type { FlowHost, InboundAdapter } from "@flowrt/engine";
import { resolvePrincipal } from "../auth/resolve-principal.js";
import { onBoardChange } from "./board-activity.js";

const encoder = new TextEncoder();

function problem(status: number, code: string, detail: string): Response {
  return Response.json(
    { type: "about:blank", title: status === 401 ? "Unauthorized" : "Forbidden", status, code, detail },
    { status, headers: { "content-type": "application/problem+json" } },
  );
}

/**
 * `GET {basePath}/board-feed`: a server-sent event stream of the caller's org board, so a member's page sees
 * posts made by others (another tab, another member, a webhook) as they happen. Each event is a board
 * `resource_change` of the request that made it, as that request's own stream carries it (`data` is the event
 * JSON); a comment line every 15 s keeps proxies from closing an idle stream. A custom inbound adapter, so every
 * adapter of the host serves it. The caller is resolved by the app's resolver (a bearer token); no org is 403.
 */
export function boardFeedInbound(): InboundAdapter<FlowHost> {
  return {
    source: "board-feed",
    createBindings: (host) => ({
      routes: [
        {
          method: "GET",
          path: `${host.basePath}/board-feed`,
          handler: async (request) => {
            const authorization = request.headers.get("authorization") ?? undefined;
            const url = new URL(request.url);
            let principal: Awaited<ReturnType<typeof resolvePrincipal>>;
            try {
              principal = await resolvePrincipal({
                source: "http",
                request: { method: "GET", url: url.pathname, headers: { authorization }, cookies: {} },
                envelope: { flowKind: "notebook", flowId: "notebook", metadata: {} },
              });
            } catch {
              return problem(401, "principal-resolution-failed", "invalid or expired token");
            }
            if (!principal) return problem(401, "unauthenticated", "sign in to follow the board");
            const orgId = principal.orgId;
            if (orgId === undefined) return problem(403, "org-required", "the board belongs to an org");
            return new Response(feed(host, orgId, request.signal), {
              headers: { "content-type": "text/event-stream", "cache-control": "no-store" },
            });
          },
        },
      ],
    }),
  };
}

function feed(host: FlowHost, orgId: string, signal: AbortSignal): ReadableStream<Uint8Array> {
  let stop = () => {};
  let closed = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if (!closed && !signal.aborted) controller.enqueue(encoder.encode(text));
      };
      send(": board feed\n\n");
      const relay = async (requestId: string) => {
        for await (const event of host.events(requestId, { signal })) {
          if (event.type === "resource_change" && event.data.ref === "board") {
            send(
              `event: resource_change\ndata: ${JSON.stringify({ type: event.type, ...event.data, requestId })}\n\n`,
            );
          }
        }
      };
      const unsubscribe = onBoardChange(orgId, (requestId) => {
        relay(requestId).catch(() => {
          // The client went away or the host closed: nothing to relay to.
        });
      });
      const keepAlive = setInterval(() => send(": keep-alive\n\n"), 15_000);
      stop = () => {
        closed = true;
        clearInterval(keepAlive);
        unsubscribe();
      };
      signal.addEventListener(
        "abort",
        () => {
          stop();
          try {
            controller.close();
          } catch {
            // Already closed.
          }
        },
        { once: true },
      );
    },
    cancel() {
      stop();
    },
  });
}
