/**
 * Type-level only: what a client sees of a resource, worked out from its state schema and its `client` block.
 * Definitions carry it on the phantom property `"~client"` (never present at runtime) so that a typed client
 * (`@flowrt/client`) can type the resource endpoints of an application's flows.
 *
 * The define functions capture the parts of a `client` block that decide what clients see (the `expose` and
 * `exclude` lists, what `data` returns, `state.read`, the content flags) as separate type parameters, through
 * {@link ClientBlockParts}: capturing the block as one type parameter would fix it before `data`'s argument
 * could be typed from the state schema.
 */
import type { ClientContentWritePermissions } from "./client-config.js";

/** Resource types as the HTTP API names them: `single`, `collection` or `external`. */
export type ResourceClientKind = "single" | "collection" | "external";

/**
 * What clients see of one resource: its kind, the `clientData` it publishes (per item for collections;
 * `never` when it publishes none) and its content permissions as declared.
 */
export interface ResourceClientView<
  TKind extends ResourceClientKind = ResourceClientKind,
  TClientData = unknown,
  TContent extends ClientContentWritePermissions = ClientContentWritePermissions,
> {
  readonly kind: TKind;
  readonly clientData: TClientData;
  readonly content: TContent;
}

/** The parts of a `client` block that decide what clients see, as the define functions infer them. */
export interface ClientBlockShape<
  TExpose extends readonly string[] = never,
  TExclude extends readonly string[] = never,
  TData = never,
  TRead extends boolean = false,
  TContent extends ClientContentWritePermissions = {},
> {
  readonly expose: TExpose;
  readonly exclude: TExclude;
  readonly data: TData;
  readonly read: TRead;
  readonly content: TContent;
}

/** Intersected with a `client` option's type so that its parts are inferred one by one (see the file comment). */
export interface ClientBlockParts<TState, TExpose, TExclude, TData, TContent> {
  expose?: TExpose;
  exclude?: TExclude;
  data?: (state: TState) => TData;
  content?: TContent;
}

/** {@link ClientBlockParts} of a collection's or external collection's block, which also says `state.read`. */
export interface CollectionClientBlockParts<TState, TExpose, TExclude, TData, TRead, TContent>
  extends ClientBlockParts<TState, TExpose, TExclude, TData, TContent> {
  state?: { read?: TRead };
}

/**
 * The `clientData` a `client` block projects from a state (client rules 3 and 6, as `projectClientData` does
 * at runtime): `expose` picks fields, `exclude` drops them, `data` is whatever it returns; without a projection
 * a collection with `state.read: true` publishes the whole state and a single resource publishes nothing.
 */
export type ProjectedClientData<
  TKind extends ResourceClientKind,
  TState,
  TShape extends ClientBlockShape<any, any, any, any, any>,
> = [TShape["expose"]] extends [never]
  ? [TShape["exclude"]] extends [never]
    ? [TShape["data"]] extends [never]
      ? TKind extends "single"
        ? never
        : TShape["read"] extends true
          ? TState
          : never
      : TShape["data"]
    : Omit<TState, TShape["exclude"][number] & keyof TState>
  : Pick<TState, TShape["expose"][number] & keyof TState>;

/** True when a content flag is set. */
type GrantsContent<TContent> = true extends TContent[keyof TContent] ? true : false;

/**
 * The client view of a definition whose `client` block has the parts `TShape`: `unknown` when the block grants
 * clients nothing (no `client` block, client rule 1, or one without any flag or projection).
 */
export type ClientViewOf<
  TKind extends ResourceClientKind,
  TState,
  TShape extends ClientBlockShape<any, any, any, any, any>,
> = [ProjectedClientData<TKind, TState, TShape>] extends [never]
  ? GrantsContent<TShape["content"]> extends true
    ? ResourceClientView<TKind, never, TShape["content"]>
    : unknown
  : ResourceClientView<TKind, ProjectedClientData<TKind, TState, TShape>, TShape["content"]>;
