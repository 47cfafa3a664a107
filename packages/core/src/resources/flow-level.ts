import { refuseOption } from "./definition-issue.js";
import type { AnyResourceDefinition } from "./types.js";

/**
 * Definition-time error 6, checked when a flow declares resources at flow level (`defineFlow({ resources })`):
 * flow-level resources load at the start of every request, so a `lazy` single resource belongs on the block
 * that needs it. Collections may be lazy anywhere (they load per key access).
 */
export function assertFlowLevelResource(accessor: string, def: AnyResourceDefinition): void {
  if (def.type === "single" && def.prefetchMode === "lazy") {
    refuseOption(
      `Resource "${accessor}"`,
      "prefetchMode",
      'prefetchMode "lazy" is set on a single resource declared at flow level, where resources load with every request',
      "Declare the resource on the block that needs it, or remove prefetchMode",
    );
  }
}
