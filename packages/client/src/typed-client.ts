/**
 * The typed client: the same client as {@link FlowClient}, typed by an application's flow definitions
 * (`createFlowClient<typeof flows>(options)`). Type-level only; the calls are the untyped client's.
 */
import type { FlowClient, InvokeStream } from "./client.js";
import type {
  ActionInputOf,
  ActionNameOf,
  FlowIdOf,
  ResourceRefOf,
  ResourceViewOf,
  ScopesClientDataOf,
} from "./flow-views.js";
import type { StreamOptions } from "./request-stream.js";
import type { ResourceClient, ResourceItemClient } from "./resources.js";
import type { CallOptions } from "./transport.js";
import type { CreateSessionBody, FlowSession, InvokeBody, InvokeResult, Snapshot } from "./types.js";

/** A single resource's endpoint: its content (`client.content.read`). */
export type SingleResourceClient = Pick<ResourceClient<never>, "content">;

/** A collection's endpoints: list, create and items (each needs its permission flag on the server). */
export type CollectionClient<TClientData> = Omit<ResourceClient<TClientData>, "content">;

/** An external collection's endpoints: read-only for clients (client rule 8). */
export interface ExternalCollectionClient<TClientData> {
  list: ResourceClient<TClientData>["list"];
  item(topic: string): Pick<ResourceItemClient<TClientData>, "state" | "content">;
}

/** The client of a resource by its kind, with its `clientData` type. */
export type TypedResourceClient<TView> = TView extends { readonly kind: "single" }
  ? SingleResourceClient
  : TView extends { readonly kind: "external"; readonly clientData: infer C }
    ? ExternalCollectionClient<C>
    : TView extends { readonly kind: "collection"; readonly clientData: infer C }
      ? CollectionClient<C>
      : never;

/**
 * A session snapshot typed by its flow: `clientData` holds an entry for each scope whose `client` block
 * publishes something, its fields optional (the server leaves out a field the state does not hold).
 */
export type FlowSnapshot<TFlows, TFlowId extends FlowIdOf<TFlows> = FlowIdOf<TFlows>> = Omit<
  Snapshot,
  "clientData"
> & { clientData: ScopesClientDataOf<TFlows, TFlowId> };

/** A session the client just created: its `flowId` is the flow it was created in. */
export type CreatedSession<TFlowId extends string> = FlowSession & { flowId: TFlowId };

/**
 * {@link FlowClient} typed by an application's flows. Flow ids, action names and resource refs are checked,
 * action inputs are the actions' `inputSchema` input types, and resource endpoints carry the `clientData` their
 * `client` blocks project. Everything not named here is the untyped client's.
 */
export interface TypedFlowClient<TFlows>
  extends Omit<FlowClient, "createSession" | "invoke" | "invokeAndStream" | "snapshot" | "resources"> {
  /** POST `/:flowId/sessions` (201). */
  createSession<TFlowId extends FlowIdOf<TFlows>>(
    flowId: TFlowId,
    body?: CreateSessionBody,
    options?: CallOptions,
  ): Promise<CreatedSession<TFlowId>>;
  /** POST `/:flowId/actions/:action` (202). Without `sessionId` the server creates a session. */
  invoke<TFlowId extends FlowIdOf<TFlows>, TAction extends ActionNameOf<TFlows, TFlowId>>(
    flowId: TFlowId,
    action: TAction,
    body: InvokeBody<ActionInputOf<TFlows, TFlowId, TAction>>,
    options?: CallOptions,
  ): Promise<InvokeResult>;
  /** POST `/:flowId/actions/:action` with `Accept: text/event-stream`: the request's events inline. */
  invokeAndStream<TFlowId extends FlowIdOf<TFlows>, TAction extends ActionNameOf<TFlows, TFlowId>>(
    flowId: TFlowId,
    action: TAction,
    body: InvokeBody<ActionInputOf<TFlows, TFlowId, TAction>>,
    options?: StreamOptions,
  ): Promise<InvokeStream>;
  /**
   * GET `/sessions/:id/state`, typed by the session's flow: name it (`snapshot<"notebook">(id)`), or the
   * snapshot is typed as any of the flows'.
   */
  snapshot<TFlowId extends FlowIdOf<TFlows> = FlowIdOf<TFlows>>(
    sessionId: string,
    options?: CallOptions,
  ): Promise<FlowSnapshot<TFlows, TFlowId>>;
  /**
   * The endpoints of one resource of a session, by its ref: the flow-level resources whose `client` block grants
   * something. Collection items carry the `clientData` the block projects.
   */
  resources<TRef extends ResourceRefOf<TFlows>>(
    sessionId: string,
    ref: TRef,
  ): TypedResourceClient<ResourceViewOf<TFlows, TRef>>;
}
