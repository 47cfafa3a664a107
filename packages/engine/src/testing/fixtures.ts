import type { FlowStores, RequestEvent, RequestRecord } from "@flowrt/core";
import { afterEach, beforeEach } from "vitest";
import { createFlowHost, type FlowHost } from "../host.js";
import type { FlowHostOptions } from "../host-options.js";
import { silentLogger } from "../logger.js";
import { STORE_FACTORIES, type StoreFactory } from "../resources/testing/harness.js";

type HostOptions = Omit<FlowHostOptions, "stores">;

function startHost(stores: FlowStores, options: HostOptions): Promise<FlowHost> {
  const host = createFlowHost({ logger: silentLogger, recoveryIntervalMs: 0, ...options, stores });
  return host.start().then(() => host);
}

/**
 * A started host over fresh stores for every test of the enclosing `describe`, closed after it: read
 * `env.host` inside the tests. `options` is called per test, so it may build fresh flows.
 */
export function useHost(factory: StoreFactory, options: () => HostOptions): { host: FlowHost } {
  const env = {} as { host: FlowHost };
  let cleanup: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    const made = await factory.create();
    cleanup = made.destroy;
    env.host = await startHost(made.stores, options());
  });
  afterEach(async () => {
    await env.host.close();
    await cleanup?.();
  });
  return env;
}

/** Runs `fn` with a started host over fresh stores (memory by default), then closes both. */
export async function withHost<T>(
  options: HostOptions,
  fn: (host: FlowHost, stores: FlowStores) => Promise<T>,
  factory: StoreFactory = storeFactories[0]!,
): Promise<T> {
  const made = await factory.create();
  const host = await startHost(made.stores, options);
  try {
    return await fn(host, made.stores);
  } finally {
    await host.close();
    await made.destroy();
  }
}

/** Every engine rule runs on the memory store and on the filesystem store (the resource engine's factories). */
export const storeFactories: StoreFactory[] = STORE_FACTORIES;

/** Waits for a request to reach a terminal status and returns its record and full event log. */
export async function settle(
  host: FlowHost,
  requestId: string,
): Promise<{ record: RequestRecord; events: RequestEvent[] }> {
  const events: RequestEvent[] = [];
  for await (const event of host.events(requestId)) events.push(event);
  const record = await host.stores.requests.get(requestId);
  if (!record) throw new Error(`request ${requestId} vanished`);
  return { record, events };
}

export function headerCaller(userId?: string, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extra };
  if (userId) headers["x-user"] = userId;
  return {
    source: "http",
    request: { method: "POST", url: "/", headers, cookies: {} },
  };
}
