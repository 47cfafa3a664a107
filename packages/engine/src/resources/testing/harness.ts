import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FlowStores, JsonObject, SessionRecord } from "@flowrt/core";
import { createFsStores } from "@flowrt/store-fs";
import { createMemoryStores } from "@flowrt/store-memory";
import type { ResourceChangeNotice, ResourceFlowInfo, ResourceRuntimeContext } from "../context.js";

export interface StoreFactory {
  name: string;
  create(): Promise<{ stores: FlowStores; destroy(): Promise<void> }>;
}

/** Every rule runs on both stores. */
export const STORE_FACTORIES: StoreFactory[] = [
  {
    name: "memory",
    async create() {
      const stores = createMemoryStores();
      return { stores, destroy: () => stores.close() };
    },
  },
  {
    name: "fs",
    async create() {
      const dir = await mkdtemp(join(tmpdir(), "flowrt-resources-"));
      const stores = createFsStores({ dir });
      return {
        stores,
        async destroy() {
          await stores.close();
          // Retries cover a store still settling its own files right after close.
          await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
        },
      };
    },
  },
];

export interface RecordedEvent {
  type: string;
  data: JsonObject;
}

export interface TestContext {
  ctx: ResourceRuntimeContext;
  events: RecordedEvent[];
  reactions: ResourceChangeNotice[];
  logs: { level: string; message: string; data?: Record<string, unknown> }[];
}

export interface ContextOptions {
  flow?: Partial<ResourceFlowInfo>;
  session?: Partial<SessionRecord>;
  requestId?: string | null;
  /** Emits nothing when true, as outside a request. */
  noRequest?: boolean;
}

export function makeSession(overrides: Partial<SessionRecord> = {}): SessionRecord {
  const id = overrides.id ?? "s1";
  return {
    id,
    flowId: "notebook",
    flowKind: "notebook",
    userId: "u1",
    orgId: "o1",
    rootSessionId: id,
    metadata: {},
    createdAt: new Date(0).toISOString(),
    ...overrides,
  };
}

/** A request context over `stores` that records every event, reaction and log line. */
export function makeContext(stores: FlowStores, options: ContextOptions = {}): TestContext {
  const events: RecordedEvent[] = [];
  const reactions: ResourceChangeNotice[] = [];
  const logs: TestContext["logs"] = [];
  const session = makeSession(options.session);
  const log = (level: string) => (message: string, data?: Record<string, unknown>) => {
    logs.push(data === undefined ? { level, message } : { level, message, data });
  };
  const ctx: ResourceRuntimeContext = {
    stores,
    flow: {
      id: "notebook",
      kind: "notebook",
      isolateUserState: false,
      isolateOrgState: false,
      ...options.flow,
    },
    session,
    principal: { userId: session.userId, ...(session.orgId === undefined ? {} : { orgId: session.orgId }) },
    requestId: options.noRequest ? null : (options.requestId ?? "r1"),
    signal: new AbortController().signal,
    log: Object.assign(log("info"), {
      debug: log("debug"),
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
    }),
    async emit(type, data) {
      if (options.noRequest) return;
      events.push({ type, data: structuredClone(data) });
    },
    async runReaction(notice) {
      reactions.push(notice);
    },
  };
  return { ctx, events, reactions, logs };
}

/** Resolves to the rejection of `promise` (fails the test when it resolves). */
export async function rejection(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; retryable: boolean; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; retryable: boolean };
  }
  throw new Error("expected the promise to reject");
}
