import type { JsonObject, ResourceHandle, ResourceIdentity } from "@flowrt/core";
import type { StateCell } from "../state/state-cell.js";

/** What an instance asks its owner (a single resource or a collection) for its content. */
export interface ContentOwner {
  readContent(instance: ResourceInstance): Promise<string | null>;
  readContentRaw(instance: ResourceInstance): Promise<string | null>;
  writeContent(instance: ResourceInstance, content: string): Promise<void>;
}

/**
 * The handle of a single resource or of one collection instance: immutable identity, a state cell for
 * every state operation (all delta rules live there) and content through its owner.
 */
export class ResourceInstance implements ResourceHandle<JsonObject> {
  // Identity is immutable at runtime too, not only in the types: read-only accessors over private
  // fields (assigning one throws a TypeError in strict code), set once without per-instance descriptors.
  readonly #path: string;
  readonly #scope: ResourceIdentity["scope"];
  readonly #uri: string;
  readonly #cell: StateCell;
  readonly #owner: ContentOwner;

  constructor(identity: ResourceIdentity, cell: StateCell, owner: ContentOwner) {
    this.#path = identity.path;
    this.#scope = identity.scope;
    this.#uri = identity.uri;
    this.#cell = cell;
    this.#owner = owner;
  }

  get path(): string {
    return this.#path;
  }

  get scope(): ResourceIdentity["scope"] {
    return this.#scope;
  }

  get uri(): string {
    return this.#uri;
  }

  /** @internal */
  get cell(): StateCell {
    return this.#cell;
  }

  get identity(): ResourceIdentity {
    return { path: this.path, scope: this.scope, uri: this.uri };
  }

  get state(): JsonObject {
    return this.cell.state;
  }

  /** The state, loading it first when needed (content rendering reads it outside the block's control). */
  async currentState(): Promise<JsonObject> {
    if (!this.cell.isLoaded) await this.cell.load();
    return this.cell.state;
  }

  patchState(partial: Partial<JsonObject>): Promise<void> {
    return this.cell.patchState(partial);
  }
  setState(state: Partial<JsonObject>): Promise<void> {
    return this.cell.setState(state);
  }
  updateState(fn: (current: JsonObject) => JsonObject): Promise<void> {
    return this.cell.updateState(fn);
  }
  incState(deltas: Partial<Record<string, number>>): Promise<void> {
    return this.cell.incState(deltas);
  }
  pushState(field: string, element: never): Promise<void> {
    return this.cell.pushState(field, element);
  }
  getOrPatchState<K extends string>(key: K, compute: () => unknown): Promise<any> {
    return this.cell.getOrPatchState(key, compute);
  }

  readContent(): Promise<string | null> {
    return this.#owner.readContent(this);
  }
  readContentRaw(): Promise<string | null> {
    return this.#owner.readContentRaw(this);
  }
  writeContent(content: string): Promise<void> {
    return this.#owner.writeContent(this, content);
  }
}
