/**
 * Type-level only: what a client sees of a flow, worked out from `defineFlow`'s options. Flow definitions carry
 * it on the phantom property `"~client"` (never present at runtime); `@flowrt/client`'s
 * `createFlowClient<typeof flows>()` reads it to type action calls, resource endpoints and snapshots.
 */
import type { BlockInput, BlockOutput } from "../blocks/block-definition.js";
import type { ResourceClientView } from "../resources/client-view.js";
import type { ScopeKind } from "../store/contract.js";

/** One action as a client calls it: `input` as the caller sends it (zod input), `output` as the block returns it. */
export interface ActionClientView<TInput = unknown, TOutput = unknown> {
  readonly input: TInput;
  readonly output: TOutput;
}

/** What a client sees of a flow instance. */
export interface FlowClientView {
  /** The instance id: `flowId` in URLs (`kind` for the plain definition). */
  readonly id: string;
  readonly actions: { readonly [name: string]: ActionClientView };
  /** The flow-level resources that grant clients anything, by accessor (ref). */
  readonly resources: { readonly [ref: string]: ResourceClientView };
  /** `clientData.<scope>` of the snapshot, for the scopes whose `client` block publishes something. */
  readonly clientData: { readonly [scope in ScopeKind]?: object };
}

/** The parts of a scope's `client` block that decide what clients see, inferred one by one by `defineFlow`. */
export interface ScopeClientParts<TState, TExpose, TDerived> {
  expose?: TExpose;
  derived?: { [K in keyof TDerived]: (state: TState) => TDerived[K] };
}

/** The block of an action entry (a bare block, or `{ block }`). */
type ActionBlock<TEntry> = TEntry extends { readonly block: infer B } ? B : TEntry;

/** Action name → its input and output. */
export type ActionsClientView<TActions> = {
  readonly [K in keyof TActions & string]: ActionClientView<
    BlockInput<ActionBlock<TActions[K]>>,
    BlockOutput<ActionBlock<TActions[K]>>
  >;
};

/** A definition's client view; `unknown` when it grants clients nothing. */
type ResourceViewOf<TDefinition> = TDefinition extends { readonly "~client"?: infer V }
  ? Exclude<V, undefined>
  : unknown;

/** Accessor → client view, for the resources that grant clients anything. */
export type ResourcesClientView<TResources> = {
  readonly [K in keyof TResources & string as unknown extends ResourceViewOf<TResources[K]>
    ? never
    : K]: ResourceViewOf<TResources[K]>;
};

/**
 * A scope's `clientData` (as the engine's `projectScopeState` builds it): the exposed fields and the derived
 * values, each optional because the engine leaves out a field the state does not hold and a derived value that
 * throws or is `undefined`.
 */
export type ScopeClientData<TState, TExpose extends readonly string[], TDerived> = {
  [K in (TExpose[number] & keyof TState) | keyof TDerived]?: K extends keyof TDerived
    ? TDerived[K]
    : K extends keyof TState
      ? TState[K]
      : never;
};

/** `{ [scope]: clientData }` when the scope's `client` block publishes something, `{}` otherwise. */
type ScopeEntry<TScope extends ScopeKind, TState, TExpose extends readonly string[], TDerived> = [
  TExpose,
] extends [never]
  ? keyof TDerived extends never
    ? {}
    : { readonly [K in TScope]: ScopeClientData<TState, never, TDerived> }
  : { readonly [K in TScope]: ScopeClientData<TState, TExpose, TDerived> };

/** The snapshot's `clientData` of a flow: one entry per scope that publishes something. */
export type ScopesClientData<
  TSession,
  TSessionExpose extends readonly string[],
  TSessionDerived,
  TUser,
  TUserExpose extends readonly string[],
  TUserDerived,
  TOrg,
  TOrgExpose extends readonly string[],
  TOrgDerived,
> = ScopeEntry<"session", TSession, TSessionExpose, TSessionDerived> &
  ScopeEntry<"user", TUser, TUserExpose, TUserDerived> &
  ScopeEntry<"org", TOrg, TOrgExpose, TOrgDerived>;

/** A flow client view with another instance id (what `flow.instance({ id })` returns). */
export type WithInstanceId<TView, TId extends string> = TView extends FlowClientView
  ? Omit<TView, "id"> & { readonly id: TId }
  : TView;
