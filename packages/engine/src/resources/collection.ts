import {
  type CollectionDefinition,
  type CollectionHandle,
  type CollectionKey,
  FlowError,
  type InstanceHookContext,
  type JsonObject,
  type ResourceIdentity,
  type ResourceStateRecord,
  resourceIdentity,
  type ScopeAddress,
  type WriteCondition,
} from "@flowrt/core";
import { refuseIfAborted } from "../requests/run-abort.js";
import { CAS_LOST, casDone, retryCas } from "../state/cas.js";
import { applyPatch } from "../state/delta.js";
import { acceptState, refuseNonJson, StateCell } from "../state/state-cell.js";
import { resourceCellBackend } from "./cell-backends.js";
import { makeRoom } from "./collection-eviction.js";
import { createCollectionHandle } from "./collection-handle.js";
import { CollectionKeys, type KeyPage, type PageWindow } from "./collection-keys.js";
import { renderContent, type TemplateSource } from "./content.js";
import type { ResourceRuntimeContext } from "./context.js";
import { announceChange, type ResourceChange } from "./events.js";
import { runInstanceHook } from "./instance-hook.js";
import { type ContentOwner, ResourceInstance } from "./resource-instance.js";
import { assertContent } from "./single-resource.js";

/**
 * A collection of one request. Instances live in the flat resource map under their full path; each is a
 * state cell. Instances read in this request are kept, so an eager collection (listed once at load) and
 * a lazy one (read per key) answer later `get`s from memory; writes always go through compare-and-swap.
 */
export class CollectionRuntime implements ContentOwner {
  readonly accessor: string;
  readonly def: CollectionDefinition<any>;
  readonly address: ScopeAddress;
  readonly ctx: ResourceRuntimeContext;
  private readonly source: TemplateSource;
  /** Instances read in this request, by path; made on first use (a client read never holds one). */
  private heldInstances: Map<string, ResourceInstance> | undefined;
  private hooks: InstanceHookContext | undefined;
  private collectionHandle: CollectionHandle<JsonObject> | undefined;
  /** Where the collection's keys sit in the store: how pages, counts and the cap are asked of it. */
  readonly keys: CollectionKeys;

  constructor(
    ctx: ResourceRuntimeContext,
    source: TemplateSource,
    accessor: string,
    def: CollectionDefinition<any>,
    address: ScopeAddress,
  ) {
    this.ctx = ctx;
    this.source = source;
    this.accessor = accessor;
    this.def = def;
    this.address = address;
    this.keys = new CollectionKeys(ctx.stores.resources, address, def);
  }

  private get instances(): Map<string, ResourceInstance> {
    this.heldInstances ??= new Map();
    return this.heldInstances;
  }

  /** `ctx.resources.<accessor>`: built on first use (a client read never needs it). */
  get handle(): CollectionHandle<JsonObject> {
    this.collectionHandle ??= createCollectionHandle(this);
    return this.collectionHandle;
  }

  /** What the instance hooks receive; built when a hook first runs. */
  private get hookContext(): InstanceHookContext {
    this.hooks ??= {
      log: (message) => this.ctx.log.info(message, { resource: this.accessor }),
      scopeType: this.def.scope,
    };
    return this.hooks;
  }

  get store() {
    return this.ctx.stores.resources;
  }

  /** The storage path of a runtime key (throws `invalid-key` outside the pattern). */
  toPath(key: CollectionKey): string {
    return this.def.compiledPattern.toPath(key, this.accessor);
  }

  /** Eager prefetch: every instance, listed once. */
  async load(): Promise<void> {
    await this.scan();
  }

  // -------------------------------------------------------------------------------------------
  // Reading

  private instance(path: string, record: ResourceStateRecord | null): ResourceInstance {
    let instance = this.instances.get(path);
    if (instance === undefined) {
      const identity = resourceIdentity(this.def.scope, path);
      const cell = new StateCell({
        name: path,
        schema: this.def.stateSchema,
        backend: resourceCellBackend(this.store, this.address, path, undefined, this.ctx),
        mustExist: true,
        onChange: ({ next, previous, created }) => this.stateChanged(identity, created, next, previous),
      });
      instance = new ResourceInstance(identity, cell, this);
      this.instances.set(path, instance);
    }
    if (record !== null) instance.cell.prime({ value: record.state, version: record.version });
    return instance;
  }

  /** The live instance at `path`, read from the store unless this request already holds it. */
  async find(path: string, options: { fresh?: boolean } = {}): Promise<ResourceInstance | null> {
    const held = this.instances.get(path);
    if (held?.cell.exists && !options.fresh) return held;
    const record = await this.store.getState(this.address, path);
    if (record === null) {
      this.instances.delete(path);
      return null;
    }
    return this.instance(path, record);
  }

  /**
   * The stored record at `path` for a client read (nothing of it is kept or handed to a block), recording
   * LRU access as a block's read does; `instance-not-found` when nothing is live there.
   */
  readRecord(path: string): Promise<ResourceStateRecord> {
    return this.readLive(path, (address, key) => this.store.getState(address, key));
  }

  /** A read by the block: {@link find}, recording LRU access (only collections that evict by recency pay for it). */
  async findTouched(path: string): Promise<ResourceInstance | null> {
    const found = await this.find(path);
    if (found !== null) await this.accessed(path);
    return found;
  }

  /**
   * Live instance records under a full-key prefix, in key order, and how many there are, from an offset or after a
   * key: asked of the store as {@link CollectionKeys} says the pattern allows (a `maxInstances` eviction reads every
   * instance, to sort them).
   */
  async page(
    prefix: string | undefined,
    window: PageWindow = { offset: 0 },
    limit?: number,
  ): Promise<KeyPage<ResourceStateRecord>> {
    return this.keys.page((address, options) => this.store.list(address, options), prefix, window, limit);
  }

  /** One live record read by `read`, or `instance-not-found`; an LRU collection records the access. */
  async readLive<R>(
    path: string,
    read: (address: ScopeAddress, key: string) => Promise<R | null>,
  ): Promise<R> {
    const record = await read(this.address, path);
    if (record === null) throw this.missing(path);
    await this.accessed(path);
    return record;
  }

  async scan(prefix?: string): Promise<ResourceInstance[]> {
    const { records } = await this.page(prefix);
    return records.map((record) => this.instance(record.key, record));
  }

  countAll(): Promise<number> {
    return this.keys.count();
  }

  // -------------------------------------------------------------------------------------------
  // Writing

  /**
   * Creates a new instance, create-only. The state is validated first and the capacity made room for
   * second, so a refused create stores nothing and evicts nothing.
   * @throws FlowError `topic-exists` when the key is live, `collection-full` at the cap with `eviction: "none"`.
   */
  async createNew(path: string, partial: Record<string, unknown> | undefined): Promise<ResourceInstance> {
    if (
      partial !== undefined &&
      (typeof partial !== "object" || partial === null || Array.isArray(partial))
    ) {
      throw new FlowError(
        "resource-write-refused",
        `Resource "${path}" create refused: its state argument is not an object.`,
      );
    }
    const instance = this.instance(path, null);
    refuseNonJson(path, "create", partial ?? {});
    const value = instance.cell.validate("create", applyPatch({}, partial ?? {}));
    const version = await this.insert(path, value);
    // The cell keeps its own copy: `value` is nobody else's, so the hook and the announcement may have it.
    instance.cell.prime({ value, version });
    await this.stateChanged(instance.identity, true, value);
    return instance;
  }

  /**
   * A client create: `seed` is the state schema's own output (parsed against `{}`), stored as a checked
   * copy without parsing it again (its transforms run once), create-only like {@link createNew}. No
   * instance is held: nothing else in a client call reads it.
   */
  async createSeeded(path: string, seed: JsonObject): Promise<void> {
    const value = acceptState(path, "create", seed);
    await this.insert(path, value);
    await this.stateChanged(resourceIdentity(this.def.scope, path), true, value);
  }

  /** The create-only write of a new instance's state; its version. */
  private async insert(path: string, value: JsonObject): Promise<number> {
    refuseIfAborted(this.ctx, "create of", path);
    const max = this.def.maxInstances;
    if (max === undefined) return this.insertAbsent(path, value);
    // The store checks the key, counts and writes as one step, so creates racing on other keys (a model's
    // parallel tool calls, other requests, other hosts on one database) cannot pass the cap together, and a
    // create of a live key is refused before any room is made. A create that finds no room evicts (`lru`,
    // `oldest`) and tries again: a racing create may have taken the room it made.
    return retryCas({ what: `resource "${this.accessor}" create of ${path}` }, async (attempt) => {
      if (attempt > 0) refuseIfAborted(this.ctx, "create of", path);
      const cap = await this.keys.cap(max);
      const result = await this.store.putState(this.address, path, value, { type: "absent", cap });
      if (result.ok) return casDone(result.version);
      if (result.full !== true) throw this.topicExists(path);
      await makeRoom(this, path, max);
      return CAS_LOST;
    });
  }

  private async insertAbsent(path: string, value: JsonObject): Promise<number> {
    const result = await this.store.putState(this.address, path, value, { type: "absent" });
    if (!result.ok) throw this.topicExists(path);
    return result.version;
  }

  /**
   * After a committed state write: the created or updated hook, then the change announcement. The one
   * path for every create (`createNew`, `createSeeded`: no previous state) and the cells' own writes.
   */
  private stateChanged(
    identity: ResourceIdentity,
    created: boolean,
    next: JsonObject,
    previous?: JsonObject,
  ): Promise<void> {
    const hook = created ? this.def.onInstanceCreated : this.def.onInstanceUpdated;
    if (hook !== undefined) {
      // Hooks name the item by its full storage key (`notes/a`), as every answer and event does.
      const key = identity.path;
      if (created)
        this.runHook("onInstanceCreated", () => this.def.onInstanceCreated?.(key, next, this.hookContext));
      else
        this.runHook("onInstanceUpdated", () =>
          // A cell's update always carries the state it replaced.
          this.def.onInstanceUpdated?.(key, next, previous as JsonObject, this.hookContext),
        );
    }
    const change: ResourceChange = {
      def: this.def,
      accessor: this.accessor,
      kind: "collection",
      change: created ? "created" : "updated",
      identity,
      state: next,
    };
    if (previous !== undefined) change.previousState = previous;
    return announceChange(this.ctx, change);
  }

  private topicExists(path: string): FlowError {
    return new FlowError("topic-exists", `Resource "${this.accessor}": an item "${path}" already exists.`, {
      details: { resource: this.accessor, topic: path },
    });
  }

  /**
   * Deletes an instance and its content row. `false` when nothing was live. `guarded` deletes only the
   * version read here (the client DELETE): a lost race throws `delete-conflict` and leaves the item and its content intact.
   */
  async remove(path: string, guarded: boolean): Promise<boolean> {
    refuseIfAborted(this.ctx, "delete of", path);
    const record = await this.store.getState(this.address, path);
    if (record === null) return false;
    const condition: WriteCondition = guarded
      ? { type: "version", version: record.version }
      : { type: "any" };
    const result = await this.store.deleteState(this.address, path, condition);
    if (!result.ok) {
      if (result.current === null) return false;
      throw new FlowError(
        "delete-conflict",
        `Resource "${this.accessor}": item "${path}" changed while it was being deleted; retry.`,
        {
          retryable: true,
          details: { resource: this.accessor, topic: path },
        },
      );
    }
    await this.removed(path);
    return true;
  }

  /** After a committed delete (an eviction's too) of the instance at `path`: the hook, then the announcement. */
  async removed(path: string): Promise<void> {
    this.instances.delete(path);
    this.runHook("onInstanceDeleted", () => this.def.onInstanceDeleted?.(path, this.hookContext));
    await this.announce("deleted", path);
  }

  /** A delete or content change of the instance at `path`, announced (see `events.ts`). */
  private announce(change: "deleted" | "content", path: string): Promise<void> {
    return announceChange(this.ctx, {
      def: this.def,
      accessor: this.accessor,
      kind: "collection",
      change,
      identity: resourceIdentity(this.def.scope, path),
    });
  }

  private runHook(name: string, run: () => unknown): void {
    runInstanceHook(this.ctx.log, `${name} hook of "${this.accessor}"`, run);
  }

  // -------------------------------------------------------------------------------------------
  // Content

  // A block's content reads and writes are accesses too: an `lru` collection records them.

  async readContent(instance: ResourceInstance): Promise<string | null> {
    await this.accessed(instance.path);
    return renderContent(this.source, this.def, this.accessor, instance);
  }

  async readContentRaw(instance: ResourceInstance): Promise<string | null> {
    await this.accessed(instance.path);
    return this.store.getContent(this.address, instance.path);
  }

  /**
   * A content write through a handle (a block's, or a client PATCH): only while the instance is live, before
   * and after the body is stored. A handle kept past a delete, or a delete racing the write, is refused with
   * `instance-not-found`, as its state writes are, instead of leaving a body a later create of the key would
   * inherit.
   */
  async writeContent(instance: ResourceInstance, content: string): Promise<void> {
    await this.readRecord(instance.path); // live, or `instance-not-found`; an access for `lru`
    return this.writeContentAt(instance.path, content, true);
  }

  private async accessed(path: string): Promise<void> {
    if (this.def.eviction === "lru") await this.store.touch(this.address, path);
  }

  /**
   * Writes the content of the instance at `path` and announces it. `recheck`: the instance must still be live
   * once the body is stored; a delete that landed meanwhile (it removes the body first, then the state) would
   * otherwise leave this body behind for a later create of the key, so it is taken back and the write refused.
   * (A create's own content write does not recheck: the specification's rule 11 describes that race.)
   */
  async writeContentAt(path: string, content: string, recheck = false): Promise<void> {
    assertContent(path, content);
    refuseIfAborted(this.ctx, "writeContent to", path);
    await this.store.putContent(this.address, path, content);
    if (recheck && (await this.store.getState(this.address, path)) === null) {
      await this.store.deleteContent(this.address, path);
      throw this.missing(path);
    }
    await this.announce("content", path);
  }

  missing(path: string): FlowError {
    return new FlowError("instance-not-found", `Resource "${this.accessor}" has no instance "${path}".`, {
      details: { resource: this.accessor, topic: path },
    });
  }
}
