import { FlowError, type FlowStores, type JsonObject, type SessionRecord } from "@flowrt/core";
import type { AccessControl } from "../access/access-control.js";
import type { Caller } from "../access/caller.js";
import { ClientCallContext } from "../execution/client-call-context.js";
import type { RegisteredFlow } from "../flows/registry.js";
import type { HostLogger } from "../logger.js";
import {
  buildManifest,
  buildSnapshot,
  type ClientResourceApi,
  createClientResourceApi,
  createResourceScope,
  type ResourceManifest,
  type Snapshot,
} from "../resources/index.js";
import type { SessionService } from "./session-service.js";

/**
 * What a session's clients see of its resources: the snapshot, the manifest, the resource operations and the
 * development inspector, each after the addressed route's owner check (the manifest only needs the session).
 */
export class ClientViews {
  constructor(
    private readonly deps: {
      stores: FlowStores;
      access: AccessControl;
      sessions: SessionService;
      logger: HostLogger;
      inspector: boolean;
      /** Starts a host never started, then refuses a closed one. */
      ready: () => Promise<void> | undefined;
    },
  ) {}

  /** A resource context outside any request: the session owner's identity, no stream to emit to. */
  private context(flow: RegisteredFlow, session: SessionRecord): ClientCallContext {
    return new ClientCallContext(this.deps.stores, flow, session, this.deps.logger);
  }

  /** The session's client snapshot (projections only; never raw state). */
  async snapshot(sessionId: string, caller: Caller): Promise<Snapshot> {
    const { session, flow } = await this.deps.access.authorizeSession(sessionId, caller);
    return buildSnapshot(this.context(flow, session), flow.allResources);
  }

  /** The resource manifest: the session must exist; no further permission gate (specification). */
  async manifest(sessionId: string): Promise<ResourceManifest> {
    const session = await this.deps.sessions.get(sessionId);
    const flow = this.deps.sessions.governingFlow(session);
    return buildManifest(flow.kind, flow.allResources);
  }

  /**
   * The client resource operations of a session, after the owner check. They can write, so a closed host refuses
   * them all, reads included, as it refuses actions and session creation (a host never started starts first).
   */
  async resourceApi(sessionId: string, caller: Caller): Promise<ClientResourceApi> {
    const starting = this.deps.ready();
    if (starting) await starting;
    const { session, flow } = await this.deps.access.authorizeSession(sessionId, caller);
    return createClientResourceApi(this.context(flow, session), flow.allResources);
  }

  /**
   * Development inspector: unfiltered state of a session, its scopes and every declared resource, each with its
   * content (`null` when it has none), collection items included.
   */
  async inspect(sessionId: string, caller: Caller): Promise<JsonObject> {
    if (!this.deps.inspector)
      throw new FlowError("inspector-disabled", "The development inspector is disabled on this host.");
    const { session, flow } = await this.deps.access.authorizeSession(sessionId, caller);
    const scope = createResourceScope(this.context(flow, session), flow.allResources);
    await scope.loadScopes();
    const resources: JsonObject = {};
    for (const accessor of scope.accessors()) {
      const handle = scope.handles[accessor];
      try {
        if (handle && typeof handle.list === "function" && typeof handle.count === "function") {
          const items: Array<{ path: string; state: JsonObject; readContentRaw(): Promise<string | null> }> =
            await handle.list();
          resources[accessor] = await Promise.all(
            items.map(async (item) => ({
              path: item.path,
              state: item.state,
              content: await item.readContentRaw(),
            })),
          );
        } else if (handle && "state" in handle) {
          await scope.load([accessor]);
          resources[accessor] = {
            path: handle.path,
            state: handle.state,
            content: await handle.readContentRaw(),
          };
        }
      } catch (error) {
        resources[accessor] = { error: error instanceof Error ? error.message : String(error) };
      }
    }
    return JSON.parse(
      JSON.stringify({
        session,
        state: {
          session: scope.scopes.session.state,
          user: scope.scopes.user.state,
          org: scope.scopes.org.state,
        },
        resources,
      }),
    ) as JsonObject;
  }
}
