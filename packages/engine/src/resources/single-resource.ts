import {
  FlowError,
  type JsonObject,
  resourceIdentity,
  type ScopeAddress,
  type SingleResourceDefinition,
  singleResourcePath,
} from "@flowrt/core";
import { refuseIfAborted } from "../requests/run-abort.js";
import { StateCell } from "../state/state-cell.js";
import { resourceCellBackend } from "./cell-backends.js";
import { initialContent, renderContent, type TemplateSource } from "./content.js";
import type { ResourceRuntimeContext } from "./context.js";
import { announceChange } from "./events.js";
import { type ContentOwner, ResourceInstance } from "./resource-instance.js";

/**
 * A single resource of one request: one state cell under its storage key (its `ref`, else its accessor
 * name), content rows read lazily. It announces changes only under `live: true`.
 */
export class SingleResourceRuntime implements ContentOwner {
  readonly accessor: string;
  readonly def: SingleResourceDefinition<any>;
  readonly handle: ResourceInstance;
  private readonly ctx: ResourceRuntimeContext;
  private readonly address: ScopeAddress;
  private readonly source: TemplateSource;

  constructor(
    ctx: ResourceRuntimeContext,
    source: TemplateSource,
    accessor: string,
    def: SingleResourceDefinition<any>,
    address: ScopeAddress,
  ) {
    this.ctx = ctx;
    this.source = source;
    this.accessor = accessor;
    this.def = def;
    this.address = address;
    const identity = resourceIdentity(def.scope, singleResourcePath(def, accessor));
    const initial = def.default === undefined ? undefined : (structuredClone(def.default) as JsonObject);
    const cell = new StateCell({
      name: accessor,
      schema: def.stateSchema,
      backend: resourceCellBackend(ctx.stores.resources, address, identity.path, initial, ctx),
      writable: def.writable,
      onChange: ({ next, previous }) =>
        announceChange(ctx, {
          def,
          accessor,
          kind: "single",
          change: "updated",
          identity,
          state: next,
          previousState: previous,
        }),
    });
    this.handle = new ResourceInstance(identity, cell, this);
  }

  async load(): Promise<void> {
    await this.handle.cell.load();
  }

  readContent(instance: ResourceInstance): Promise<string | null> {
    return renderContent(this.source, this.def, this.accessor, instance);
  }

  async readContentRaw(instance: ResourceInstance): Promise<string | null> {
    const stored = await this.ctx.stores.resources.getContent(this.address, instance.path);
    return stored ?? initialContent(this.def, this.accessor);
  }

  async writeContent(instance: ResourceInstance, content: string): Promise<void> {
    assertContent(this.accessor, content);
    refuseIfAborted(this.ctx, "writeContent to", this.accessor);
    await this.ctx.stores.resources.putContent(this.address, instance.path, content);
    await announceChange(this.ctx, {
      def: this.def,
      accessor: this.accessor,
      kind: "single",
      change: "content",
      identity: instance.identity,
    });
  }
}

export function assertContent(accessor: string, content: unknown): asserts content is string {
  if (typeof content !== "string") {
    throw new FlowError(
      "resource-write-refused",
      `Resource "${accessor}" writeContent refused: content must be a string; nothing was stored.`,
    );
  }
}
