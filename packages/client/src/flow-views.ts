/**
 * Type-level only: reading an application's flow definitions for the typed client. `defineFlow` (from
 * `@flowrt/core`) records what clients see of a flow on the phantom property `"~client"` of the definition: its
 * id, each action's input and output, the flow-level resources that grant clients anything, and the scopes'
 * client data. The shapes below are that record as the client reads it, structurally: the client imports
 * nothing from `@flowrt/core`, so it installs and runs without it.
 */
import type { ScopeKind } from "./types.js";

/** Content permissions of a resource, as its `client.content` block declares them. */
export interface ContentFlags {
  readonly read?: boolean;
  readonly prefetch?: boolean;
  readonly create?: boolean;
  readonly update?: boolean;
  readonly delete?: boolean;
}

/** What clients see of one resource: its kind and its `clientData` (per item for collections; `never` for none). */
export interface ResourceView {
  readonly kind: "single" | "collection" | "external";
  readonly clientData: unknown;
  readonly content: ContentFlags;
}

/** What clients see of one flow instance. */
export interface FlowView {
  /** The instance id (`flowId` in URLs). */
  readonly id: string;
  readonly actions: { readonly [name: string]: { readonly input: unknown; readonly output: unknown } };
  readonly resources: { readonly [ref: string]: ResourceView };
  readonly clientData: { readonly [scope in ScopeKind]?: object };
}

/** A flow definition (or instance), as `defineFlow` returns it. */
export interface FlowLike {
  readonly kind: string;
  readonly id: string;
  readonly "~client"?: unknown;
}

/**
 * An application's flows, as the type argument of `createFlowClient<typeof flows>()`: one flow, an array of
 * flows (what `createFlowHost({ flows })` takes) or an object of flows. Each is addressed by its id (`kind`,
 * or the id given to `instance()`), whatever its key in an object.
 */
export type FlowsLike = FlowLike | readonly FlowLike[] | { readonly [key: string]: FlowLike };

/** The flows of `TFlows` as a union. */
type FlowUnion<TFlows> = TFlows extends readonly (infer F)[]
  ? F
  : "~client" extends keyof TFlows
    ? TFlows
    : TFlows[keyof TFlows];

/** The client view of each flow (a union); a definition without one (not made by `defineFlow`) adds nothing. */
export type FlowViews<TFlows> =
  FlowUnion<TFlows> extends infer F
    ? F extends { readonly "~client"?: infer V }
      ? Exclude<V, undefined> extends infer W extends FlowView
        ? W
        : never
      : never
    : never;

/** The ids of the flows (`flowId` in URLs). */
export type FlowIdOf<TFlows> = FlowViews<TFlows>["id"];

/** The view of the flow with id `TFlowId`. */
export type FlowViewOf<TFlows, TFlowId> = Extract<FlowViews<TFlows>, { readonly id: TFlowId }>;

/** The action names of a flow. */
export type ActionNameOf<TFlows, TFlowId extends FlowIdOf<TFlows>> = keyof FlowViewOf<
  TFlows,
  TFlowId
>["actions"] &
  string;

/** What an action takes as `input`: its `inputSchema`'s input type (before defaults), `unknown` without one. */
export type ActionInputOf<
  TFlows,
  TFlowId extends FlowIdOf<TFlows>,
  TAction extends ActionNameOf<TFlows, TFlowId>,
> = FlowViewOf<TFlows, TFlowId>["actions"][TAction]["input"];

/** What an action's request records as `output`: its `outputSchema`'s output, else what the block returns. */
export type ActionOutputOf<
  TFlows,
  TFlowId extends FlowIdOf<TFlows>,
  TAction extends ActionNameOf<TFlows, TFlowId>,
> = FlowViewOf<TFlows, TFlowId>["actions"][TAction]["output"];

/** The refs of the resources clients may address: the flow-level resources with a `client` block that grants something. */
export type ResourceRefOf<TFlows, TFlowId extends FlowIdOf<TFlows> = FlowIdOf<TFlows>> =
  FlowViewOf<TFlows, TFlowId> extends infer V
    ? V extends FlowView
      ? keyof V["resources"] & string
      : never
    : never;

/** The view of the resource `TRef` (a union when flows declare the same ref differently). */
export type ResourceViewOf<TFlows, TRef extends string> =
  FlowViews<TFlows> extends infer V
    ? V extends FlowView
      ? TRef extends keyof V["resources"]
        ? V["resources"][TRef]
        : never
      : never
    : never;

/** The `clientData` of the resource `TRef` (of each item, for collections); `never` when it publishes none. */
export type ResourceClientDataOf<TFlows, TRef extends string> = ResourceViewOf<TFlows, TRef>["clientData"];

/** The snapshot's `clientData` of a flow: one entry per scope whose `client` block publishes something. */
export type ScopesClientDataOf<TFlows, TFlowId extends FlowIdOf<TFlows> = FlowIdOf<TFlows>> = FlowViewOf<
  TFlows,
  TFlowId
>["clientData"];
