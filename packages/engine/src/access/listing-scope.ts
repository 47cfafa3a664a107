import type { Principal } from "@flowrt/core";
import type { RegisteredFlow } from "../flows/registry.js";
import type { AccessControl } from "./access-control.js";
import type { Caller } from "./caller.js";
import { resolveListingCaller } from "./principal.js";

/** Rows a listing may return for one caller: the user (`undefined`: any, in open flows), the flows, the owner. */
export interface ListingScope {
  userId?: string;
  flowIds: string[];
  /** The identified caller whose owner rules (`canRead`) every row must pass; absent in open flows. */
  owner?: Principal;
}

/** A listing's narrowing: each of `userId` and `flowId` one value or several, every one of which a row must match. */
export interface ListingQuery {
  userId?: string | readonly string[];
  flowId?: string | readonly string[];
}

/** The one value all given values agree on: `undefined` when none is given, `null` when they differ (no row matches). */
function agreedValue(value: string | readonly string[] | undefined): string | undefined | null {
  if (typeof value === "string") return value;
  if (value === undefined || value.length === 0) return undefined;
  const first = value[0]!;
  return value.every((v) => v === first) ? first : null;
}

/**
 * What a listing may return, as groups of flows with one caller each: the user to list (`undefined`: any, in open
 * flows), the flows, and the identified caller whose owner rules rows must pass. Empty when nothing can match (no
 * caller identified, or narrowing values that disagree).
 *
 * With a host-level resolver each flow's caller is who governs it says: the host resolver for flows without one of
 * their own, a flow's own resolver for its rows ("the per-flow hook always wins"), each asked without
 * `defaultUserId` (a listing is no action: a default user is no one's caller). Without a host resolver only flows
 * that have no resolver of their own are listed (open by the specification's development default). Never refused:
 * a caller no resolver identifies gets an empty list.
 */
export async function listingScopes(
  access: AccessControl,
  caller: Caller,
  query: ListingQuery,
): Promise<ListingScope[]> {
  const userId = agreedValue(query.userId);
  const flowId = agreedValue(query.flowId);
  if (userId === null || flowId === null) return [];
  const flows = access.registry.flows.filter((f) => flowId === undefined || f.id === flowId);
  const scope = (principal: Principal | null, of: RegisteredFlow[]): ListingScope[] =>
    // Specification: listings are scoped to the caller and never rejected; an unidentified caller is nobody.
    principal && of.length > 0 && (userId === undefined || userId === principal.userId)
      ? [{ userId: principal.userId, flowIds: of.map((f) => f.id), owner: principal }]
      : [];
  // An asserted principal (a trusted in-process caller) wins over every resolver.
  if (caller.principal) return scope(caller.principal, flows);
  const { hostResolver } = access;
  const logger = caller.log ?? access.logger;
  if (hostResolver) {
    const own = flows.filter((f) => f.definition.authentication.resolvePrincipal !== undefined);
    const governed = flows.filter((f) => f.definition.authentication.resolvePrincipal === undefined);
    const asked = await Promise.all([
      governed.length === 0
        ? null
        : resolveListingCaller(
            hostResolver,
            // Outside any flow: the host resolver answers for every flow it governs.
            {
              source: caller.source,
              ...(caller.request ? { request: caller.request } : {}),
              envelope: { flowKind: "", flowId: "", metadata: {} },
            },
            logger,
          ),
      ...own.map((f) =>
        resolveListingCaller(
          f.definition.authentication.resolvePrincipal!,
          access.resolutionContext(f, caller, {}),
          logger,
        ),
      ),
    ]);
    return [scope(asked[0]!, governed), ...own.map((f, i) => scope(asked[i + 1]!, [f]))].flat();
  }
  const open = flows.filter((f) => !access.hasResolver(f)).map((f) => f.id);
  return [{ ...(userId !== undefined ? { userId } : {}), flowIds: open }];
}
