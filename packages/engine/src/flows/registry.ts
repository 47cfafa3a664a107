import {
  type AnyBlock,
  type AnyFlowDefinition,
  type AnyResourceDefinition,
  collectBlockResources,
  DefinitionError,
  FlowError,
  isFlowDefinition,
} from "@flowrt/core";

/** A flow as the host runs it: the definition plus what the host derives from it once, at registration. */
export interface RegisteredFlow {
  readonly id: string;
  readonly kind: string;
  readonly definition: AnyFlowDefinition;
  /** Flow-level resources: loaded at the start of every request. */
  readonly flowResources: Readonly<Record<string, AnyResourceDefinition>>;
  /** Every resource the flow declares, flow-level first, then each action's, webhook's and schedule's blocks. */
  readonly allResources: Readonly<Record<string, AnyResourceDefinition>>;
  /** What each action's, webhook binding's, schedule's and reaction's block tree declares, by its root block. */
  readonly treeResources: ReadonlyMap<AnyBlock, Readonly<Record<string, AnyResourceDefinition>>>;
}

/** Every accessor → definition declared by a block tree. */
export function blockResources(block: AnyBlock): Record<string, AnyResourceDefinition> {
  const out: Record<string, AnyResourceDefinition> = {};
  for (const { accessor, definition } of collectBlockResources(block)) out[accessor] ??= definition;
  return out;
}

function register(definition: AnyFlowDefinition): RegisteredFlow {
  const allResources: Record<string, AnyResourceDefinition> = { ...definition.resources };
  const blocks: AnyBlock[] = Object.values(definition.actions).map((a) => a.block);
  for (const provider of Object.values(definition.webhooks)) {
    for (const binding of Object.values(provider.on)) blocks.push(binding.block);
  }
  for (const schedule of Object.values(definition.schedules)) blocks.push(schedule.block);
  for (const reaction of definition.reactions) blocks.push(reaction.block);
  const treeResources = new Map<AnyBlock, Readonly<Record<string, AnyResourceDefinition>>>();
  for (const block of blocks) {
    const tree = treeResources.get(block) ?? Object.freeze(blockResources(block));
    treeResources.set(block, tree);
    for (const [accessor, def] of Object.entries(tree)) allResources[accessor] ??= def;
  }
  return Object.freeze({
    id: definition.id,
    kind: definition.kind,
    definition,
    flowResources: definition.resources,
    allResources: Object.freeze(allResources),
    treeResources,
  });
}

/** The host's flows by instance id and by kind. Immutable after construction. */
export class FlowRegistry {
  private readonly byId = new Map<string, RegisteredFlow>();
  private readonly byKind = new Map<string, RegisteredFlow[]>();

  constructor(flows: readonly AnyFlowDefinition[]) {
    for (const definition of flows) {
      if (!isFlowDefinition(definition)) {
        throw new DefinitionError("createFlowHost: every entry of `flows` must be made with defineFlow().");
      }
      if (this.byId.has(definition.id)) {
        throw new DefinitionError(
          `createFlowHost: two flows have the id "${definition.id}". Give one a distinct id with flow.instance({ id }).`,
        );
      }
      const flow = register(definition);
      this.byId.set(flow.id, flow);
      const siblings = this.byKind.get(flow.kind) ?? [];
      siblings.push(flow);
      this.byKind.set(flow.kind, siblings);
    }
  }

  get flows(): RegisteredFlow[] {
    return [...this.byId.values()];
  }

  find(id: string): RegisteredFlow | undefined {
    return this.byId.get(id);
  }

  get(id: string): RegisteredFlow {
    const flow = this.byId.get(id);
    if (!flow) throw new FlowError("flow-not-found", `No flow "${id}" is registered on this host.`);
    return flow;
  }

  instancesOfKind(kind: string): RegisteredFlow[] {
    return this.byKind.get(kind) ?? [];
  }

  /**
   * The flow a path or a dispatch names: the instance with that id, else the only instance of that kind.
   * `undefined` when there is none, or the kind has several instances (ambiguous).
   */
  named(name: string): RegisteredFlow | undefined {
    const byId = this.byId.get(name);
    if (byId) return byId;
    const instances = this.instancesOfKind(name);
    return instances.length === 1 ? instances[0] : undefined;
  }

  /**
   * The flow that owns a stored record (specification: instance ownership). A record with no owner
   * belongs to its kind's only instance; with several instances it cannot be placed.
   */
  ownerOf(record: { flowId: string | null; flowKind: string }): RegisteredFlow {
    if (record.flowId) {
      const owner = this.byId.get(record.flowId);
      if (owner) return owner;
      throw new FlowError(
        "flow-not-found",
        `The flow "${record.flowId}" that owns this record is not served here.`,
      );
    }
    const instances = this.instancesOfKind(record.flowKind);
    if (instances.length === 1) return instances[0]!;
    if (instances.length === 0) {
      throw new FlowError(
        "flow-not-found",
        `No flow of kind "${record.flowKind}" is registered on this host.`,
      );
    }
    throw new FlowError(
      "migration-required",
      `This record has no recorded owner and kind "${record.flowKind}" has several instances; migrate it to one.`,
    );
  }
}
