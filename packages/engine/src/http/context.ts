import type { FlowHost } from "../host.js";
import type { Route } from "./router.js";

/** What every route handler gets besides its request: the host, the limits, and the route table itself. */
export interface HttpContext {
  host: FlowHost;
  bodyLimit: number;
  heartbeatMs: number;
  /** The route table, in matching order (the OpenAPI document is generated from it). */
  routes: readonly Route<HttpContext>[];
}
