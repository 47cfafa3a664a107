import type { FlowRegistry } from "../flows/registry.js";
import type { HostLogger } from "../logger.js";
import type { AccessControl } from "./access-control.js";

/**
 * Says at start which flows anyone can use: no resolver of their own and none on the host. Their routes trust
 * `body.userId`, and (with the inspector on) show unfiltered state.
 */
export function warnOpenFlows(
  registry: FlowRegistry,
  access: AccessControl,
  logger: HostLogger,
  inspector: boolean,
): void {
  const open = registry.flows.filter((flow) => !access.hasResolver(flow)).map((flow) => flow.id);
  if (open.length === 0) return;
  logger.warn(
    { flows: open, inspector },
    "flows open to anyone: no principal resolver, callers name their own user (body.userId)",
  );
}
