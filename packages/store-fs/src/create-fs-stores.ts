import type { FlowStores } from "@flowrt/core";
import { DefinitionError } from "@flowrt/core";
import { FsContext } from "./internal/fs-context.js";
import { KeyedMutex } from "./internal/keyed-mutex.js";
import { SessionScopes } from "./internal/session-scopes.js";
import { FsRequestStore } from "./request-store.js";
import { FsResourceStore } from "./resource-store.js";
import { FsScopeStateStore } from "./scope-state-store.js";
import { FsSessionStore } from "./session-store.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** How long finished requests and their event logs are kept. */
export interface FsRetentionOptions {
  /** Remove finished requests whose `completedAt` is older than this. @default 604800000 (7 days) */
  maxAgeMs?: number;
  /** Keep at most this many finished requests, the newest by `completedAt`. @default 10000 */
  maxCount?: number;
  /** How often the purge runs in the background. @default 600000 (10 minutes) */
  intervalMs?: number;
}

export interface FsStoresOptions {
  /**
   * The folder that holds everything (created when missing). Give each store its own folder and
   * open it from one process at a time: guarantees hold within one store instance.
   * @example createFsStores({ dir: ".data/flowrt" })
   */
  dir: string;
  /**
   * Whether writes are fsynced before they are acknowledged. Without it a crash of the process
   * still loses nothing acknowledged, but a power loss may.
   * @default true
   */
  fsync?: boolean;
  /**
   * Background removal of finished requests and their event logs, so that a long-running host
   * does not grow without bound; `false` turns it off (call `requests.purgeFinished` yourself).
   * @default { maxAgeMs: 604800000, maxCount: 10000, intervalMs: 600000 }
   */
  retention?: FsRetentionOptions | false;
}

/** The defaults of {@link FsRetentionOptions}. */
export const DEFAULT_FS_RETENTION: Readonly<Required<FsRetentionOptions>> = Object.freeze({
  maxAgeMs: 7 * DAY_MS,
  maxCount: 10_000,
  intervalMs: 10 * 60 * 1000,
});

/**
 * Stores that keep everything as files under one folder: atomic writes (temp file, fsync,
 * rename), per-key serialization within the instance, hashed path-safe file names and an
 * in-memory key index per resource bucket for ordered listing.
 *
 * @example
 * const stores = createFsStores({ dir: ".data/flowrt" });
 * const host = createFlowHost({ flows: [notebook], stores });
 */
export function createFsStores(options: FsStoresOptions): FlowStores {
  if (typeof options?.dir !== "string" || options.dir === "") {
    throw new DefinitionError("createFsStores needs `dir`, the folder to keep the store in.");
  }
  if (options.fsync !== undefined && typeof options.fsync !== "boolean") {
    throw new DefinitionError("createFsStores: `fsync` must be a boolean.");
  }
  const retention = resolveRetention(options.retention);
  const ctx = new FsContext(options.dir, options.fsync ?? true);
  const mutex = new KeyedMutex();
  const sessionScopes = new SessionScopes(ctx, mutex);
  const sessions = new FsSessionStore(ctx, mutex);
  const scopeState = new FsScopeStateStore(ctx, mutex, sessionScopes);
  const resources = new FsResourceStore(ctx, mutex, sessionScopes);
  // An ephemeral session goes with its last request, and its session-scope data first (a crash in
  // between leaves the session without its data, never data nothing points to any more).
  const requests = new FsRequestStore(ctx, mutex, async (sessionIds) => {
    for (const id of sessionIds) {
      const session = await sessions.get(id);
      if ((session?.metadata as { ephemeral?: unknown } | undefined)?.ephemeral !== true) continue;
      const buckets = await sessionScopes.read(id);
      for (const bucket of buckets.scopeState)
        await scopeState.drop({ scope: "session", scopeId: id, bucket });
      for (const bucket of buckets.resources)
        await resources.dropBucket({ scope: "session", scopeId: id, bucket });
      await sessionScopes.remove(id, buckets);
      await sessions.remove(id);
    }
  });

  let purging: Promise<unknown> = Promise.resolve();
  const timer =
    retention === false
      ? undefined
      : setInterval(() => {
          purging = purging
            .then(() =>
              requests.purgeFinished({ maxAgeMs: retention.maxAgeMs, maxCount: retention.maxCount }),
            )
            // A failed purge is retried at the next tick; the store stays usable.
            .catch(() => {});
        }, retention.intervalMs);
  timer?.unref();

  let closing: Promise<void> | undefined;
  return {
    kind: "fs",
    crossProcess: false,
    sessions,
    requests,
    scopeState,
    resources,
    close() {
      closing ??= (async () => {
        if (timer) clearInterval(timer);
        ctx.markClosed();
        // A store closed right after it was made still finishes creating its files before close resolves.
        await ctx.started();
        await purging;
        await mutex.idle();
        await Promise.all([requests.flush(), resources.flush()]);
      })();
      return closing;
    },
  };
}

function resolveRetention(
  retention: FsRetentionOptions | false | undefined,
): Required<FsRetentionOptions> | false {
  if (retention === false) return false;
  const resolved = { ...DEFAULT_FS_RETENTION, ...retention };
  for (const name of ["maxAgeMs", "maxCount", "intervalMs"] as const) {
    const value = resolved[name];
    if (!Number.isSafeInteger(value) || value < 0 || (name === "intervalMs" && value === 0)) {
      throw new DefinitionError(
        `createFsStores: retention.${name} must be a ${name === "intervalMs" ? "positive" : "non-negative"} integer.`,
      );
    }
  }
  return resolved;
}
