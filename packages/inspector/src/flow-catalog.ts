import type { FlowHost } from "@flowrt/engine";

/** One flow as the inspector lists it: its actions, webhook bindings and resources. */
export interface FlowEntry {
  id: string;
  kind: string;
  protected: boolean;
  actions: Array<{ name: string; block: string; blockKind: string; description?: string; durable: boolean }>;
  webhooks: Array<{ provider: string; event: string; block: string }>;
  resources: Array<{ accessor: string; type: string; scope: string; path: string }>;
}

/** The host's flows, read from its registry (the definitions as `defineFlow` froze them). */
export function flowCatalog(host: FlowHost): FlowEntry[] {
  return host.registry.flows.map((flow) => {
    const definition = flow.definition;
    const actions = Object.entries(definition.actions).map(([name, action]) => {
      const entry: FlowEntry["actions"][number] = {
        name,
        block: action.block.name,
        blockKind: action.block.kind,
        durable: action.durable === true,
      };
      if (action.description) entry.description = action.description;
      return entry;
    });
    const webhooks = Object.entries(definition.webhooks).flatMap(([provider, bindings]) =>
      Object.entries(bindings.on).map(([event, binding]) => ({ provider, event, block: binding.block.name })),
    );
    const resources = Object.entries(flow.allResources).map(([accessor, resource]) => {
      const described = resource as { type?: string; scope?: string; path?: string; pattern?: string };
      return {
        accessor,
        type: described.type ?? "",
        scope: described.scope ?? "",
        path: described.pattern ?? described.path ?? "",
      };
    });
    return {
      id: flow.id,
      kind: flow.kind,
      protected: host.access.hasResolver(flow),
      actions,
      webhooks,
      resources,
    };
  });
}
