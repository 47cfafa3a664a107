import type { ResourceMap } from "../blocks/block-definition.js";
import type { AnySchema, SchemaState } from "../blocks/schema.js";
import {
  assertKnownKeys,
  assertOptions,
  normalizeResources,
  optionalBoolean,
  optionalString,
} from "../blocks/validate.js";
import { DEFINITION_KIND, definitionKindOf } from "../brand.js";
import { DefinitionError } from "../errors.js";
import { assertFlowLevelResource, type StateField } from "../resources/index.js";
import { normalizeActions } from "./actions.js";
import { normalizeAuthentication } from "./authentication.js";
import type {
  ActionsClientView,
  ResourcesClientView,
  ScopeClientParts,
  ScopesClientData,
} from "./flow-client-view.js";
import type {
  AnyFlowDefinition,
  FlowActionsOption,
  FlowDefinition,
  FlowOptions,
  ScopeDefinition,
} from "./flow-types.js";
import { assertFlowId } from "./path-segment.js";
import { normalizeReactions } from "./reactions.js";
import {
  checkAccessorCollisions,
  checkNoUserScopeResources,
  checkStorageOverlaps,
  checkUnnamedSharedDefinitions,
  flowResourceDeclarations,
} from "./resource-rules.js";
import { normalizeSchedules } from "./schedules.js";
import { normalizeScopeConfig } from "./scope-config.js";
import { normalizeWebhooks } from "./webhooks.js";

const FLOW_KEYS = [
  "kind",
  "description",
  "actions",
  "resources",
  "session",
  "user",
  "org",
  "authentication",
  "webhooks",
  "schedules",
  "isolateUserState",
  "isolateOrgState",
  "reactions",
];

type FlowFields = Omit<
  AnyFlowDefinition,
  typeof DEFINITION_KIND | "id" | "instanceOf" | "instance" | "~types"
>;

/**
 * Defines a flow: its actions, resources, scope state and authentication. Every definition-time rule
 * is checked here, so a flow that is returned is one the engine can host (rule 12, an unconfigured
 * webhook provider, is checked by the host at startup).
 *
 * The definition's type also records what clients see of the flow (its `"~client"` view: id, action inputs and
 * outputs, client-visible resources, scope client data), which `createFlowClient<typeof flows>()` of
 * `@flowrt/client` reads; the type parameters after `TResources` exist for that and are always inferred.
 *
 * @example
 * export const notebook = defineFlow({
 *   kind: "notebook",
 *   session: { stateSchema: z.object({ added: z.number().default(0) }), client: { expose: ["added"] } },
 *   resources: { notes },
 *   actions: { addNote },
 * });
 */
export function defineFlow<
  TSession extends AnySchema | undefined = undefined,
  TUser extends AnySchema | undefined = undefined,
  TOrg extends AnySchema | undefined = undefined,
  TResources extends ResourceMap = {},
  TKind extends string = string,
  TActions extends FlowActionsOption<TResources, TSession, TUser, TOrg> = {},
  const TSessionExpose extends readonly StateField<SchemaState<TSession>>[] = never,
  TSessionDerived = {},
  const TUserExpose extends readonly StateField<SchemaState<TUser>>[] = never,
  TUserDerived = {},
  const TOrgExpose extends readonly StateField<SchemaState<TOrg>>[] = never,
  TOrgDerived = {},
>(
  options: FlowOptions<TSession, TUser, TOrg, TResources> & {
    kind: TKind;
    actions?: TActions;
    session?: { client?: ScopeClientParts<SchemaState<TSession>, TSessionExpose, TSessionDerived> };
    user?: { client?: ScopeClientParts<SchemaState<TUser>, TUserExpose, TUserDerived> };
    org?: { client?: ScopeClientParts<SchemaState<TOrg>, TOrgExpose, TOrgDerived> };
  },
): FlowDefinition<
  SchemaState<TSession>,
  SchemaState<TUser>,
  SchemaState<TOrg>,
  {
    readonly id: TKind;
    readonly actions: ActionsClientView<TActions>;
    readonly resources: ResourcesClientView<TResources>;
    readonly clientData: ScopesClientData<
      SchemaState<TSession>,
      TSessionExpose,
      TSessionDerived,
      SchemaState<TUser>,
      TUserExpose,
      TUserDerived,
      SchemaState<TOrg>,
      TOrgExpose,
      TOrgDerived
    >;
  }
> {
  assertOptions("defineFlow()", options);
  const raw = options as unknown as Record<string, unknown>;
  assertFlowId("defineFlow()", `"kind"`, raw.kind);
  const kind = raw.kind;
  const where = `Flow "${kind}"`;
  assertKnownKeys(where, raw, FLOW_KEYS);

  const fields: FlowFields = {
    kind,
    description: optionalString(where, "description", raw.description),
    actions: normalizeActions(kind, raw.actions),
    resources: normalizeResources(where, raw.resources),
    session: normalizeScopeConfig(kind, "session", raw.session),
    user: normalizeScopeConfig(kind, "user", raw.user),
    org: normalizeScopeConfig(kind, "org", raw.org),
    authentication: normalizeAuthentication(where, raw.authentication),
    webhooks: normalizeWebhooks(kind, raw.webhooks),
    schedules: normalizeSchedules(kind, raw.schedules),
    isolateUserState: optionalBoolean(where, "isolateUserState", raw.isolateUserState, false),
    isolateOrgState: optionalBoolean(where, "isolateOrgState", raw.isolateOrgState, false),
    reactions: normalizeReactions(kind, raw.reactions),
  };

  // Rule 6: flow-level resources load with every request, so some options belong on blocks instead.
  for (const [accessor, definition] of Object.entries(fields.resources))
    assertFlowLevelResource(accessor, definition);

  const roots = [
    ...Object.values(fields.actions).map((a) => a.block),
    ...Object.values(fields.webhooks).flatMap((p) => Object.values(p.on).map((b) => b.block)),
    ...Object.values(fields.schedules).map((s) => s.block),
    ...fields.reactions.map((r) => r.block),
  ];
  const declarations = flowResourceDeclarations(kind, fields.resources, roots);
  for (const reaction of fields.reactions) {
    if (!declarations.some((d) => d.accessor === reaction.reactTo.resource)) {
      throw new DefinitionError(
        `Flow "${kind}" reacts to "${reaction.reactTo.resource}", which neither the flow nor any of its blocks declares. ` +
          "Declare the resource under that accessor, or fix the name.",
      );
    }
  }
  checkAccessorCollisions(kind, declarations);
  checkUnnamedSharedDefinitions(kind, declarations);
  checkStorageOverlaps(kind, declarations, fields);
  if (!fields.authentication.requireUser) {
    checkWithoutUser(kind, fields);
    checkNoUserScopeResources(kind, declarations);
  }
  return build(fields, kind, undefined) as never;
}

/** Rule 11, scope part: `requireUser: false` forbids user-scope state and any scope `client` block. */
function checkWithoutUser(kind: string, fields: FlowFields): void {
  if (fields.user.stateSchema !== undefined) {
    throw new DefinitionError(
      `Flow "${kind}" sets requireUser: false but declares user.stateSchema; a flow without user identity ` +
        "cannot hold user-scope state.",
      { rule: 11, flow: kind, scope: "user" },
    );
  }
  for (const scope of ["session", "user", "org"] as const) {
    const config: ScopeDefinition = fields[scope];
    if (config.client !== undefined) {
      throw new DefinitionError(
        `Flow "${kind}" sets requireUser: false but declares ${scope === "org" ? "an" : "a"} ${scope} client block; state published to ` +
          "clients needs an identified user to scope it to.",
        { rule: 11, flow: kind, scope },
      );
    }
  }
}

function build(fields: FlowFields, id: string, instanceOf: string | undefined): AnyFlowDefinition {
  return Object.freeze({
    [DEFINITION_KIND]: "flow" as const,
    ...fields,
    id,
    instanceOf,
    instance(options: { id: string }): AnyFlowDefinition {
      const at = `Flow "${fields.kind}" instance()`;
      assertOptions(at, options);
      assertKnownKeys(at, options, ["id"]);
      assertFlowId(at, `"id"`, options.id);
      return build(fields, options.id, fields.kind);
    },
  });
}

/** True for a flow definition (or instance) from any installed copy of `@flowrt/core`. */
export function isFlowDefinition(value: unknown): value is AnyFlowDefinition {
  return definitionKindOf(value) === "flow";
}
