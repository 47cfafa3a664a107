import { DefinitionError, defineFlow, handler } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it, vi } from "vitest";
import { createFlowHost } from "../host.js";
import type { InboundAdapter, InboundRoute } from "../host-options.js";
import { silentLogger } from "../logger.js";

const noop = handler({ name: "noop", execute: async () => "ok" });
const flow = defineFlow({ kind: "inbound-checks", actions: { noop } });
const ok = () => new Response("ok");

function hostWith(inbound: unknown) {
  return createFlowHost({
    flows: [flow],
    stores: createMemoryStores(),
    logger: silentLogger,
    recoveryIntervalMs: 0,
    inbound: inbound as InboundAdapter[],
  });
}

function adapter(routes: unknown, source = "hooks"): InboundAdapter {
  return { source, createBindings: () => ({ routes: routes as InboundRoute[] }) };
}

describe("custom inbound routes are checked by the host", () => {
  it.each([
    [
      "a handler that is not a function",
      [{ method: "POST", path: "/h", handler: "nope" }],
      /handler must be a function/,
    ],
    ["a relative path", [{ method: "POST", path: "h", handler: ok }], /path must be the full request path/],
    [
      "a path that is not a string",
      [{ method: "POST", path: 7, handler: ok }],
      /path must be the full request path/,
    ],
    [
      "a method that is not a token",
      [{ method: "PO ST", path: "/h", handler: ok }],
      /unsupported method "PO ST"/,
    ],
    [
      "TRACE, which a Request cannot carry",
      [{ method: "trace", path: "/h", handler: ok }],
      /unsupported method "trace"/,
    ],
    [
      "CONNECT",
      [{ method: "CONNECT", path: "/h", handler: ok }],
      /CONNECT, TRACE and TRACK never reach a handler/,
    ],
    ["a route that is not an object", [null], /returned a route that is not an object/],
    ["routes that are not an array", { path: "/h" }, /must return \{ routes: \[\.\.\.\] \}/],
  ])("start() refuses %s, naming the adapter", async (_what, routes, message) => {
    const host = hostWith([adapter(routes)]);
    await expect(host.start()).rejects.toThrow(DefinitionError);
    await expect(host.start()).rejects.toThrow(message);
    expect(host.started).toBe(false);
    if (Array.isArray(routes) && routes[0] !== null)
      await expect(host.start()).rejects.toThrow(/of adapter "hooks"/);
  });

  it("refuses an adapter without a source or createBindings, and an inbound option that is not an array", async () => {
    await expect(hostWith([{ source: "", createBindings: () => ({ routes: [] }) }]).start()).rejects.toThrow(
      "An inbound adapter must be an object with a non-empty `source` and `createBindings(host)`.",
    );
    await expect(hostWith([{ source: "x" }]).start()).rejects.toThrow(DefinitionError);
    await expect(hostWith([null]).start()).rejects.toThrow(DefinitionError);
    await expect(hostWith({ source: "x", createBindings: () => ({ routes: [] }) }).start()).rejects.toThrow(
      "createFlowHost({ inbound }) must be an array of inbound adapters.",
    );
  });

  it("refuses two routes on one method and path, across adapters and letter case", async () => {
    const host = hostWith([
      adapter([{ method: "post", path: "/hooks/slash", handler: ok }], "first"),
      adapter([{ method: "POST", path: "/hooks/slash", handler: ok }], "second"),
    ]);
    await expect(host.start()).rejects.toThrow(
      'Inbound route POST /hooks/slash of adapter "second": adapter "first" already declares POST /hooks/slash',
    );
    // The same path under another method is a different route.
    const both = hostWith([
      adapter([
        { method: "GET", path: "/hooks/slash", handler: ok },
        { method: "POST", path: "/hooks/slash", handler: ok },
      ]),
    ]);
    await both.start();
    expect(both.inboundRoutes().map((r) => `${r.method} ${r.path} ${r.source}`)).toEqual([
      "GET /hooks/slash hooks",
      "POST /hooks/slash hooks",
    ]);
    await both.close();
  });

  it("binds each adapter once, however often the routes are read, and hands out copies of the list", async () => {
    const createBindings = vi.fn(() => ({ routes: [{ method: "POST", path: "/hooks/once", handler: ok }] }));
    const host = hostWith([{ source: "once", createBindings }]);
    const mounted = host.inboundRoutes(); // a transport may mount before start()
    await host.start();
    mounted.length = 0;
    expect(host.inboundRoutes()).toHaveLength(1);
    expect(createBindings).toHaveBeenCalledTimes(1);
    expect(createBindings).toHaveBeenCalledWith(host);
    await host.close();
  });

  it("a host without inbound adapters has no routes", async () => {
    const host = hostWith(undefined);
    await host.start();
    expect(host.inboundRoutes()).toEqual([]);
    await host.close();
  });
});
