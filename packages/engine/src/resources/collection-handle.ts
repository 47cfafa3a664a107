import { type CollectionHandle, type CollectionKey, hasErrorCode, type JsonObject } from "@flowrt/core";
import type { ResourceInstance } from "./resource-instance.js";

/** What a collection handle asks of its collection (`CollectionRuntime`). */
export interface HandleRuntime {
  readonly def: { scope: CollectionHandle<JsonObject>["scope"]; pattern: string };
  toPath(key: CollectionKey): string;
  find(path: string, options?: { fresh?: boolean }): Promise<ResourceInstance | null>;
  findTouched(path: string): Promise<ResourceInstance | null>;
  missing(path: string): Error;
  createNew(path: string, partial: Record<string, unknown> | undefined): Promise<ResourceInstance>;
  scan(prefix?: string): Promise<ResourceInstance[]>;
  countAll(): Promise<number>;
  remove(path: string, guarded: boolean): Promise<boolean>;
}

/** A create that lost to another request's create of the same key: theirs is the instance (or `null`). */
async function raced(runtime: HandleRuntime, path: string, error: unknown): Promise<ResourceInstance> {
  const theirs = hasErrorCode(error, "topic-exists") ? await runtime.find(path, { fresh: true }) : null;
  if (theirs === null) throw error;
  return theirs;
}

/** `ctx.resources.<accessor>` of a collection: the block-facing operations, each keyed by the caller's key. */
export function createCollectionHandle(runtime: HandleRuntime): CollectionHandle<JsonObject> {
  const def = runtime.def;
  return {
    scope: def.scope,
    pattern: def.pattern,
    async create(key, state, options) {
      const path = runtime.toPath(key);
      if (options?.replace === true) {
        const existing = await runtime.find(path, { fresh: true });
        if (existing !== null) {
          await existing.setState(state ?? {});
          return existing;
        }
      }
      return runtime.createNew(path, state);
    },
    async get(key) {
      const path = runtime.toPath(key);
      const found = await runtime.findTouched(path);
      if (found === null) throw runtime.missing(path);
      return found;
    },
    getOptional: (key) => runtime.findTouched(runtime.toPath(key)),
    async getOrCreate(key, init) {
      const path = runtime.toPath(key);
      const found = await runtime.findTouched(path);
      if (found !== null) return found;
      try {
        return await runtime.createNew(path, init);
      } catch (error) {
        // Another request created it between our read and our write: theirs is the instance.
        return raced(runtime, path, error);
      }
    },
    async upsert(key, update, createOnly) {
      const path = runtime.toPath(key);
      const existing = await runtime.find(path);
      if (existing !== null) {
        await existing.patchState(update);
        return existing;
      }
      try {
        return await runtime.createNew(path, { ...(createOnly ?? {}), ...update });
      } catch (error) {
        const theirs = await raced(runtime, path, error);
        await theirs.patchState(update);
        return theirs;
      }
    },
    list: (prefix) => runtime.scan(prefix),
    count: () => runtime.countAll(),
    async delete(key) {
      await runtime.remove(runtime.toPath(key), false);
    },
  };
}
