import {
  DEFAULT_RETENTION,
  type FlowStores,
  type RequestEvent,
  type RetentionOptions,
  resolveRetention,
} from "@flowrt/core";
import { createFenceGuard } from "./fence-guard.js";
import { createMemoryRequestStore } from "./memory-request-store.js";
import { createMemoryResourceStore } from "./memory-resource-store.js";
import { createMemoryScheduleStore } from "./memory-schedule-store.js";
import { createMemoryScopeStateStore } from "./memory-scope-state-store.js";
import { createMemorySessionStore } from "./memory-session-store.js";

/** @deprecated Retention is the host's: use `RetentionOptions` from `@flowrt/core` with `createFlowHost({ retention })`. */
export type MemoryRetentionOptions = RetentionOptions;

export interface MemoryStoresOptions {
  /**
   * Retention of finished requests, for a host given none of its own: the host purges (`createFlowHost({ retention
   * })` is the place to say it); the store keeps it for the host and checks it here. `false`: the host purges
   * nothing unless told to.
   * @deprecated Give `retention` to `createFlowHost`.
   */
  retention?: RetentionOptions | false;
  /**
   * Called when a `requests.subscribe` listener throws. The error never reaches `appendEvent`'s
   * caller or the other listeners.
   * @default logs the error with `console.error`
   */
  onListenerError?: (error: unknown, event: RequestEvent) => void;
}

/** @deprecated The one default is `DEFAULT_RETENTION` from `@flowrt/core`, which this is. */
export const DEFAULT_MEMORY_RETENTION: Readonly<Required<RetentionOptions>> = DEFAULT_RETENTION;

/**
 * Stores that keep everything in this process's memory: fast, nothing to set up, gone on exit.
 * For development, tests and single-process hosts that do not need durability.
 *
 * @example
 * const host = createFlowHost({ flows, stores: createMemoryStores() });
 */
export function createMemoryStores(options: MemoryStoresOptions = {}): FlowStores {
  // Checked here, where the option is written; the host applies it.
  resolveRetention(options.retention, "createMemoryStores");
  const onListenerError =
    options.onListenerError ??
    ((error: unknown, event: RequestEvent) =>
      console.error(`store-memory: a listener of request "${event.requestId}" threw`, error));
  // Fenced writes are checked against the request store, made last (it retires sessions through the others):
  // the guard looks it up only when a write is fenced, after this function has returned.
  const fenced = createFenceGuard((requestId) => requests.epochOf(requestId));
  const resources = createMemoryResourceStore(fenced);
  // A user's or org's scope removal takes its resources with its state.
  const scopeState = createMemoryScopeStateStore(fenced, resources.dropOwner);
  const dropSessionScope = (sessionId: string) => ({
    states: scopeState.dropSession(sessionId),
    ...resources.dropOwner("session", sessionId),
  });
  const sessions = createMemorySessionStore({
    // An ephemeral session goes with its last request, and its session-scope data with it.
    onRetired: dropSessionScope,
    // A removed session takes its requests (the request store is made below; looked up only when called).
    removeParts: (sessionId) => ({ ...requests.removeSession(sessionId), ...dropSessionScope(sessionId) }),
  });
  const requests = createMemoryRequestStore(onListenerError, sessions);

  return {
    kind: "memory",
    crossProcess: false,
    sessions,
    requests,
    scopeState,
    resources,
    schedules: createMemoryScheduleStore(),
    ...(options.retention !== undefined ? { retention: options.retention } : {}),
    // Nothing outside the process to reach: the memory store answers while the process does.
    async ping() {},
    async close() {
      requests.clearListeners();
    },
  };
}
