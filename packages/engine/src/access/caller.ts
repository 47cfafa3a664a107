import type { Principal, PrincipalResolutionRequest } from "@flowrt/core";
import type { HostLogger } from "../logger.js";

/**
 * Who is calling, as a transport describes it. The host resolves a principal from it per flow; `principal` is an
 * identity asserted by a trusted in-process caller (custom inbound adapters).
 */
export interface Caller {
  source: string;
  request?: PrincipalResolutionRequest;
  rawBody?: Uint8Array;
  /** The parsed body: given to resolvers as `metadata.body` on action calls only. */
  body?: unknown;
  principal?: Principal;
  /** The logger of the call (an HTTP request's, bound to its request id); else the host's. */
  log?: HostLogger;
}
