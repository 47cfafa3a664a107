import type { FlowStores } from "@flowrt/core";
import { createFlowHost, type FlowHost } from "../../host.js";
import type { FlowHostOptions } from "../../host-options.js";
import { createHttpHandler } from "../../http/handler.js";
import { silentLogger } from "../../logger.js";
import type { StoreFactory } from "../../resources/testing/harness.js";
import { storeFactories } from "../../testing/fixtures.js";
import { serveOverSocket } from "../../webhooks/testing/webhook-harness.js";
import { headerResolver, lifecycleFlows } from "./lifecycle-flows.js";

export interface Answer {
  status: number;
  body: any;
}

export interface Caller {
  user?: string;
  org?: string;
  body?: unknown;
}

export interface LifecycleServer {
  host: FlowHost;
  stores: FlowStores;
  url: string;
  /** A real HTTP request to the API: `user`/`org` become the resolver's headers; a body is sent as JSON. */
  call(method: string, path: string, caller?: Caller): Promise<Answer>;
  /** Starts an action as `user` and returns its request and session ids. */
  invoke(
    flowId: string,
    action: string,
    user: string,
    body?: { input?: unknown; sessionId?: string; org?: string },
  ): Promise<{ requestId: string; sessionId: string }>;
  /** Waits until a request has reached one of `statuses`. */
  until(requestId: string, statuses: string[]): Promise<void>;
  close(): Promise<void>;
}

/** A started host with the lifecycle flows over fresh stores (memory unless a factory is given), served over a socket. */
export async function serveLifecycle(
  options: { factory?: StoreFactory; wrap?: (stores: FlowStores) => FlowStores } & Partial<
    Omit<FlowHostOptions, "stores">
  > = {},
): Promise<LifecycleServer> {
  const { factory = storeFactories[0]!, wrap, ...hostOptions } = options;
  const made = await factory.create();
  const stores = wrap ? wrap(made.stores) : made.stores;
  const host = createFlowHost({
    flows: lifecycleFlows,
    logger: silentLogger,
    recoveryIntervalMs: 0,
    // A host resolver: the listings ask every flow's own resolver (without one, flows with a resolver are unlisted).
    resolvePrincipal: headerResolver,
    // The debug route is one of the addressed routes these tests walk: on, as a development host has it.
    inspector: true,
    ...hostOptions,
    stores,
  });
  await host.start();
  const server = await serveOverSocket(createHttpHandler(host));
  const call = async (method: string, path: string, caller: Caller = {}): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (caller.user) headers["x-user"] = caller.user;
    if (caller.org) headers["x-org"] = caller.org;
    if (caller.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers,
      ...(caller.body !== undefined ? { body: JSON.stringify(caller.body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
  };
  return {
    host,
    stores,
    url: server.url,
    call,
    async invoke(flowId, action, user, body = {}) {
      const { org, ...rest } = body;
      const answer = await call("POST", `/${flowId}/actions/${action}`, {
        user,
        ...(org ? { org } : {}),
        body: { input: {}, ...rest },
      });
      if (answer.status !== 202)
        throw new Error(`invoke ${action}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
    async until(requestId, statuses) {
      for (let i = 0; i < 3_000; i++) {
        const record = await stores.requests.get(requestId);
        if (record && statuses.includes(record.status)) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`request ${requestId} never reached ${statuses.join("/")}`);
    },
    async close() {
      await server.close();
      await host.close();
      await made.destroy();
    },
  };
}
