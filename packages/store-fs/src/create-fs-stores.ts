import {
  DEFAULT_RETENTION,
  DefinitionError,
  type FlowStores,
  type RequestRecord,
  type RetentionOptions,
  resolveRetention,
} from "@flowrt/core";
import { DocTable } from "./internal/doc-table.js";
import { FenceGate } from "./internal/fence-gate.js";
import { FsContext } from "./internal/fs-context.js";
import { KeyedMutex } from "./internal/keyed-mutex.js";
import { ScopeBuckets } from "./internal/scope-buckets.js";
import { FsRequestStore } from "./request-store.js";
import { FsResourceStore } from "./resource-store.js";
import { FsScheduleStore } from "./schedule-store.js";
import { FsScopeStateStore } from "./scope-state-store.js";
import { FsSessionStore } from "./session-store.js";

/** @deprecated Retention is the host's: use `RetentionOptions` from `@flowrt/core` with `createFlowHost({ retention })`. */
export type FsRetentionOptions = RetentionOptions;

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
   * Retention of finished requests and their event logs, for a host given none of its own: the host purges
   * (`createFlowHost({ retention })` is the place to say it); the store keeps it for the host and checks it here.
   * `false`: the host purges nothing unless told to.
   * @deprecated Give `retention` to `createFlowHost`.
   */
  retention?: RetentionOptions | false;
}

/** @deprecated The one default is `DEFAULT_RETENTION` from `@flowrt/core`, which this is. */
export const DEFAULT_FS_RETENTION: Readonly<Required<RetentionOptions>> = DEFAULT_RETENTION;

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
  // Checked here, where the option is written; the host applies it.
  resolveRetention(options.retention, "createFsStores");
  const ctx = new FsContext(options.dir, options.fsync ?? true);
  const mutex = new KeyedMutex();
  const scopeBuckets = new ScopeBuckets(ctx, mutex);
  const requestTable = new DocTable<RequestRecord>(ctx, "requests");
  const fences = new FenceGate(requestTable);
  const resources = new FsResourceStore(ctx, mutex, scopeBuckets, fences);
  const scopeState = new FsScopeStateStore(ctx, mutex, scopeBuckets, fences, resources);
  // A removed session takes its requests first, then its session-scope data, then (in the session store) the
  // record: a crash in between leaves the record, marked deleting, for a second call to finish.
  const sessions: FsSessionStore = new FsSessionStore(ctx, mutex, async (sessionId) => ({
    ...(await requests.removeSession(sessionId)),
    ...(await scopeState.removeOwner("session", sessionId)),
  }));
  // An ephemeral session goes with its last request, and its session-scope data first (a crash in
  // between leaves the session without its data, never data nothing points to any more).
  const requests: FsRequestStore = new FsRequestStore(
    ctx,
    mutex,
    requestTable,
    fences,
    async (sessionIds) => {
      for (const id of sessionIds) {
        const session = await sessions.get(id);
        if ((session?.metadata as { ephemeral?: unknown } | undefined)?.ephemeral !== true) continue;
        await scopeState.removeOwner("session", id);
        await sessions.removeRecord(id);
      }
    },
    sessions,
  );
  // Before any call: the writes a crash left between their record and its other parts are finished.
  ctx.recoverWith(() => requests.recover());

  let closing: Promise<void> | undefined;
  return {
    kind: "fs",
    crossProcess: false,
    sessions,
    requests,
    scopeState,
    resources,
    schedules: new FsScheduleStore(ctx, mutex),
    ...(options.retention !== undefined ? { retention: options.retention } : {}),
    ping: () => ctx.ping(),
    close() {
      closing ??= (async () => {
        ctx.markClosed();
        // A store closed right after it was made still finishes creating its files before close resolves.
        await ctx.started();
        await mutex.idle();
        await Promise.all([requests.flush(), resources.flush()]);
      })();
      return closing;
    },
  };
}
