import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FlowStores, RequestEvent, RequestRecord } from "@flowrt/core";
import { createFsStores } from "@flowrt/store-fs";
import { createMemoryStores } from "@flowrt/store-memory";
import type { FlowHost } from "../flow-host.js";

export interface StoreFactory {
  name: string;
  create(): Promise<{ stores: FlowStores; dir?: string; cleanup(): Promise<void> }>;
}

/** Every engine rule runs on the memory store and on the filesystem store. */
export const storeFactories: StoreFactory[] = [
  {
    name: "memory",
    async create() {
      const stores = createMemoryStores();
      return { stores, cleanup: () => stores.close() };
    },
  },
  {
    name: "fs",
    async create() {
      const dir = await mkdtemp(join(tmpdir(), "flowrt-engine-"));
      const stores = createFsStores({ dir });
      return {
        stores,
        dir,
        async cleanup() {
          await stores.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

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
