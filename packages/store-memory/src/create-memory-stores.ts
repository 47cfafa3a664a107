import type { FlowStores, RequestEvent } from "@flowrt/core";
import { createMemoryRequestStore } from "./memory-request-store.js";
import { createMemoryResourceStore } from "./memory-resource-store.js";
import { createMemoryScopeStateStore } from "./memory-scope-state-store.js";
import { createMemorySessionStore } from "./memory-session-store.js";

/** How long finished requests (and their event logs) are kept before the retention timer removes them. */
export interface MemoryRetentionOptions {
  /**
   * Remove finished requests whose `completedAt` is older than this.
   * @default 86_400_000 (24 hours)
   */
  maxAgeMs?: number;
  /**
   * Keep at most this many finished requests, newest by `completedAt`.
   * @default 10_000
   */
  maxCount?: number;
  /**
   * How often the timer runs `purgeFinished`. The timer is `unref()`ed (it never keeps the process
   * alive) and stops on `close()`.
   * @default 60_000 (1 minute)
   */
  intervalMs?: number;
}

export interface MemoryStoresOptions {
  /**
   * Retention of finished requests. `false` turns the timer off; `requests.purgeFinished(policy)`
   * still works when called directly. Partial options are merged with {@link DEFAULT_MEMORY_RETENTION}.
   * @default DEFAULT_MEMORY_RETENTION
   * @example createMemoryStores({ retention: { maxAgeMs: 3_600_000 } })
   */
  retention?: MemoryRetentionOptions | false;
  /**
   * Called when a `requests.subscribe` listener throws. The error never reaches `appendEvent`'s
   * caller or the other listeners.
   * @default logs the error with `console.error`
   */
  onListenerError?: (error: unknown, event: RequestEvent) => void;
}

/** The retention used when none is given: 24 hours, 10 000 finished requests, checked every minute. */
export const DEFAULT_MEMORY_RETENTION: Readonly<Required<MemoryRetentionOptions>> = Object.freeze({
  maxAgeMs: 86_400_000,
  maxCount: 10_000,
  intervalMs: 60_000,
});

function resolveRetention(retention: MemoryRetentionOptions | false | undefined) {
  if (retention === false) return null;
  const resolved = { ...DEFAULT_MEMORY_RETENTION, ...retention };
  for (const [name, value] of Object.entries(resolved)) {
    if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
      throw new RangeError(
        `createMemoryStores: retention.${name} must be a non-negative number (got ${String(value)}).`,
      );
    }
  }
  if (resolved.intervalMs === 0) {
    throw new RangeError(
      "createMemoryStores: retention.intervalMs must be greater than 0; use retention: false to disable it.",
    );
  }
  return resolved;
}

/**
 * Stores that keep everything in this process's memory: fast, nothing to set up, gone on exit.
 * For development, tests and single-process hosts that do not need durability.
 *
 * @example
 * const host = createFlowHost({ flows, stores: createMemoryStores() });
 */
export function createMemoryStores(options: MemoryStoresOptions = {}): FlowStores {
  const retention = resolveRetention(options.retention);
  const onListenerError =
    options.onListenerError ??
    ((error: unknown, event: RequestEvent) =>
      console.error(`store-memory: a listener of request "${event.requestId}" threw`, error));
  const scopeState = createMemoryScopeStateStore();
  const resources = createMemoryResourceStore();
  // An ephemeral session goes with its last request, and its session-scope data with it.
  const sessions = createMemorySessionStore((sessionId) => {
    scopeState.dropSession(sessionId);
    resources.dropSession(sessionId);
  });
  const requests = createMemoryRequestStore(onListenerError, sessions);

  let timer: NodeJS.Timeout | undefined;
  if (retention) {
    timer = setInterval(() => {
      requests.purgeFinished({ maxAgeMs: retention.maxAgeMs, maxCount: retention.maxCount }).catch(() => {
        // In memory nothing can fail here; the catch only keeps a rejection from going unhandled.
      });
    }, retention.intervalMs);
    timer.unref();
  }

  return {
    kind: "memory",
    crossProcess: false,
    sessions,
    requests,
    scopeState,
    resources,
    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      requests.clearListeners();
    },
  };
}
