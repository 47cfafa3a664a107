import { defineFlow, handler } from "@flowrt/core";
import { describe, expect, it, vi } from "vitest";
import { withHost } from "../testing/fixtures.js";
import { recordingLogger } from "../testing/recording-logger.js";
import { createMountedHandler, type MountedRequest } from "./mount.js";

const echo = defineFlow({
  kind: "echo",
  authentication: { requireUser: false, defaultUserId: "dev" },
  actions: { echo: { block: handler({ name: "echo", execute: async (input) => input }) } },
});

function request(method: string, target: string, extra: Partial<MountedRequest> = {}): MountedRequest {
  return { method, target, url: target, origin: "http://app.test", headers: {}, ...extra };
}

/** A body that arrives chunk by chunk, as a Node request does. */
async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

describe("createMountedHandler", () => {
  it("serves the API below basePath as ready-to-write JSON text with its content-length, and nothing else", async () => {
    await withHost({ flows: [echo] }, async (host) => {
      const handle = createMountedHandler(host);
      const flows = await handle(request("GET", "/API/Flows?x=1"));
      expect(flows?.status).toBe(200);
      expect(JSON.parse(flows!.bodyText!)).toMatchObject({ flows: [{ flowId: "echo" }] });
      expect(flows!.headers["content-length"]).toBe(String(Buffer.byteLength(flows!.bodyText!)));
      // Not below the mount (a sibling sharing the prefix included): the application's.
      expect(await handle(request("GET", "/api/flowsX"))).toBeNull();
      expect(await handle(request("GET", "/health"))).toBeNull();
    });
  });

  it("reads a streamed body under the limit: 413 with the limit, or the body served", async () => {
    await withHost({ flows: [echo] }, async (host) => {
      const handle = createMountedHandler(host, { bodyLimit: 24 });
      const headers = { "transfer-encoding": "chunked", "content-type": "application/json" };
      const refused = await handle(
        request("POST", "/api/flows/echo/sessions", {
          headers,
          body: chunks('{"title":', '"a much longer title"}'),
        }),
      );
      expect(refused?.status).toBe(413);
      expect(JSON.parse(refused!.bodyText!)).toMatchObject({ code: "payload-too-large", limit: 24 });
      const created = await handle(
        request("POST", "/api/flows/echo/sessions", { headers, body: chunks('{"title":', '"short"}') }),
      );
      expect(created?.status).toBe(201);
      expect(JSON.parse(created!.bodyText!).session.title).toBe("short");
    });
  });

  it("a HEAD request's event stream is never opened; a GET gets the stream's frames", async () => {
    await withHost({ flows: [echo] }, async (host) => {
      const handle = createMountedHandler(host);
      const invoked = await handle(
        request("POST", "/api/flows/echo/actions/echo", {
          headers: { "content-type": "application/json", "content-length": "13" },
          rawBody: Buffer.from('{"input":"x"}'),
        }),
      );
      const { requestId } = JSON.parse(invoked!.bodyText!) as { requestId: string };
      const events = vi.spyOn(host, "events");
      const head = await handle(request("HEAD", `/api/flows/requests/${requestId}/stream`));
      expect(head?.status).toBe(200);
      expect(head?.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
      expect(head?.stream).toBeUndefined();
      const get = await handle(request("GET", `/api/flows/requests/${requestId}/stream`));
      const frames: string[] = [];
      for await (const frame of get!.stream!.frames) frames.push(frame);
      expect(frames.at(-1)).toMatch(/^id: \d+\nevent: request\.completed\ndata: /);
      expect(events).toHaveBeenCalledTimes(2); // made for both, iterated only for the GET
    });
  });

  it("a body JSON cannot hold is a logged 500 problem, without the error's message", async () => {
    const { logger, lines } = recordingLogger();
    await withHost({ flows: [echo], logger }, async (host) => {
      vi.spyOn(host.registry, "flows", "get").mockReturnValue([
        { id: "x", kind: "x", definition: { actions: {}, webhooks: {} }, n: 1n } as never,
      ]);
      vi.spyOn(host, "hasResolver").mockReturnValue(1n as never);
      const answer = await createMountedHandler(host)(request("GET", "/api/flows"));
      expect(answer?.status).toBe(500);
      expect(JSON.parse(answer!.bodyText!)).toEqual({
        type: "about:blank",
        title: "Internal Server Error",
        status: 500,
        code: "internal-error",
        detail: "An unexpected error occurred.",
        errorId: expect.any(String),
      });
      // Logged whole (the error, its stack) under the errorId the problem carries, with the request's id.
      const { errorId } = JSON.parse(answer!.bodyText!);
      const failure = lines.find((line) => line.level === "error");
      expect(failure).toMatchObject({ msg: "flow router failed", fields: { method: "GET", errorId } });
      expect(failure?.fields.reqId).toBe(answer!.headers["x-request-id"]);
      expect(failure?.fields.err).toBeInstanceOf(TypeError);
    });
  });

  it("serves a custom inbound route before the API, with the absolute URL, and refuses a method the transport cannot receive", async () => {
    const seen: string[] = [];
    const inbound = [
      {
        source: "hooks",
        createBindings: () => ({
          routes: [
            {
              method: "POST",
              path: "/api/flows/hooks/:team",
              handler: async (req: Request) => {
                seen.push(`${req.url} ${await req.text()}`);
                return new Response("ok", { status: 201, statusText: "Made" });
              },
            },
          ],
        }),
      },
    ];
    await withHost({ flows: [echo], inbound }, async (host) => {
      const handle = createMountedHandler(host);
      const answer = await handle(
        request("POST", "/api/flows/hooks/acme?a=1", {
          url: "/app/api/flows/hooks/acme?a=1",
          headers: { "content-length": "2" },
          body: chunks("hi"),
        }),
      );
      expect(answer).toMatchObject({ status: 201, statusText: "Made" });
      let text = "";
      for await (const chunk of answer!.chunks!) text += Buffer.from(chunk).toString();
      expect(text).toBe("ok");
      expect(seen).toEqual(["http://app.test/app/api/flows/hooks/acme?a=1 hi"]);
      expect(() => createMountedHandler(host, { methods: ["GET"] })).toThrow(
        'Inbound route POST /api/flows/hooks/:team of adapter "hooks": unsupported method "POST"',
      );
    });
  });
});
