import {
  type CasResult,
  type CountOptions,
  type Fence,
  type FlowStores,
  hasErrorCode,
  type JsonObject,
  type ListOptions,
  type ResourceStore,
  type ScopeAddress,
  type ScopeStateStore,
  type WriteCondition,
} from "@flowrt/core";
import type { ClaimedRun } from "../requests/active-run.js";

/** What the fenced view asks of its run: the lease check, and what to do when the claim is lost. */
type FencedRun = Pick<ClaimedRun, "checkLease" | "loseLease">;

/**
 * The stores as a durable run sees them: every write carries the run's fence (its request and claim epoch), so a
 * store refuses it, atomically with the write, once another host took the request over. Before each write the run
 * checks that its claim was renewed within the lease (a paused process stops rather than tries); a refusal
 * (`lease-lost`) stops the run and reaches the writer as `request-aborted`. Reads pass through unchanged.
 */
export class FencedStores implements FlowStores {
  readonly kind: string;
  readonly crossProcess: boolean;
  readonly sessions: FlowStores["sessions"];
  readonly requests: FlowStores["requests"];
  readonly scopeState: ScopeStateStore;
  readonly resources: ResourceStore;
  readonly schedules: FlowStores["schedules"];

  constructor(
    private readonly inner: FlowStores,
    private readonly run: FencedRun,
    /** The run's request and claim epoch, carried by every write. */
    readonly fence: Fence,
  ) {
    this.kind = inner.kind;
    this.crossProcess = inner.crossProcess;
    this.sessions = inner.sessions;
    this.requests = inner.requests;
    this.schedules = inner.schedules;
    this.scopeState = new FencedScopeState(inner.scopeState, this);
    this.resources = new FencedResources(inner.resources, this);
  }

  /** Runs one fenced write: the lease check first, and a `lease-lost` refusal turned into the run's end. */
  async write<T>(what: string, name: string, write: (fence: Fence) => Promise<T>): Promise<T> {
    this.run.checkLease(what, name);
    try {
      return await write(this.fence);
    } catch (error) {
      if (hasErrorCode(error, "lease-lost")) throw this.run.loseLease(error.message, what, name);
      throw error;
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

class FencedScopeState implements ScopeStateStore {
  constructor(
    private readonly inner: ScopeStateStore,
    private readonly fenced: FencedStores,
  ) {}

  get(address: ScopeAddress) {
    return this.inner.get(address);
  }

  getMany(addresses: readonly ScopeAddress[]) {
    return this.inner.getMany(addresses);
  }

  put(address: ScopeAddress, value: JsonObject, condition: WriteCondition): Promise<CasResult<JsonObject>> {
    return this.fenced.write("state write to scope", address.scope, (fence) =>
      this.inner.put(address, value, condition, fence),
    );
  }

  /** An administrative removal (`eraseUser`), never a run's write: passed through unfenced. */
  removeScope(scope: "user" | "org", scopeId: string) {
    return this.inner.removeScope(scope, scopeId);
  }
}

class FencedResources implements ResourceStore {
  readonly getStateText: ResourceStore["getStateText"];
  readonly listText: ResourceStore["listText"];

  constructor(
    private readonly inner: ResourceStore,
    private readonly fenced: FencedStores,
  ) {
    this.getStateText = inner.getStateText?.bind(inner);
    this.listText = inner.listText?.bind(inner);
  }

  getState(address: ScopeAddress, key: string) {
    return this.inner.getState(address, key);
  }

  touch(address: ScopeAddress, key: string, at?: number) {
    return this.inner.touch(address, key, at);
  }

  list(address: ScopeAddress, options?: ListOptions) {
    return this.inner.list(address, options);
  }

  count(address: ScopeAddress, prefix?: string, options?: CountOptions) {
    return this.inner.count(address, prefix, options);
  }

  getContent(address: ScopeAddress, key: string) {
    return this.inner.getContent(address, key);
  }

  putState(address: ScopeAddress, key: string, state: JsonObject, condition: WriteCondition) {
    return this.fenced.write("state write to", key, (fence) =>
      this.inner.putState(address, key, state, condition, fence),
    );
  }

  deleteState(address: ScopeAddress, key: string, condition: WriteCondition) {
    return this.fenced.write("delete of", key, (fence) =>
      this.inner.deleteState(address, key, condition, fence),
    );
  }

  putContent(address: ScopeAddress, key: string, content: string) {
    return this.fenced.write("writeContent to", key, (fence) =>
      this.inner.putContent(address, key, content, fence),
    );
  }

  deleteContent(address: ScopeAddress, key: string) {
    return this.fenced.write("content delete of", key, (fence) =>
      this.inner.deleteContent(address, key, fence),
    );
  }
}
