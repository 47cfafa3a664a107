import type { JsonObject, JsonValue, SessionHandle, StateHandle } from "@flowrt/core";
import type { ClaimedRun } from "../requests/active-run.js";
import { refuseIfAborted } from "../requests/run-abort.js";

/** A change to a session's record, as `ctx.session`'s setters make it. */
export interface SessionRecordChange {
  title?: string | null;
  metadata?: { [key: string]: JsonValue | null };
}

/**
 * How a run changes its session's record. Given to runs by the host (the sessions service checks the change as
 * `PATCH /sessions/:id` does, and the store merges the metadata atomically).
 */
export interface SessionRecordWriter {
  change(sessionId: string, change: SessionRecordChange): Promise<unknown>;
}

/** What the handle asks of its run: whether it was aborted or has ended, its fence and lease check. */
type HandleRun = Pick<ClaimedRun, "abort" | "fence" | "checkLease">;

/**
 * `ctx.session`: the session's scope state (the scope handle's reads and writes, unchanged) and its record's title
 * and metadata. The record's writes are refused, with nothing stored, once the run was aborted (`request-aborted`)
 * or has ended (`request-finished`), like every write of a run; a durable run also checks its claim was renewed
 * within the lease first. They are not fenced in the store: the session store's `update` takes no fence (the
 * contract fences scope state, resources and events only), so a write already on its way when another host takes
 * the request over may still land. A title or metadata is the last writer's anyway, and a take-over re-runs the
 * request, which sets them again.
 */
export class RunSessionHandle implements SessionHandle<JsonObject> {
  constructor(
    private readonly scope: StateHandle<JsonObject>,
    private readonly run: HandleRun,
    private readonly sessionId: string,
    private readonly writer: SessionRecordWriter | undefined,
  ) {}

  get state(): JsonObject {
    return this.scope.state;
  }

  patchState(partial: Partial<JsonObject>): Promise<void> {
    return this.scope.patchState(partial);
  }

  setState(state: Partial<JsonObject>): Promise<void> {
    return this.scope.setState(state);
  }

  updateState(fn: (current: JsonObject) => JsonObject): Promise<void> {
    return this.scope.updateState(fn);
  }

  incState(deltas: Partial<Record<string, number>>): Promise<void> {
    return this.scope.incState(deltas);
  }

  pushState(field: string, element: JsonValue): Promise<void> {
    return this.scope.pushState(field, element);
  }

  getOrPatchState<K extends string>(
    key: K,
    compute: () => JsonValue | undefined | Promise<JsonValue | undefined>,
  ): Promise<JsonValue | undefined> {
    return this.scope.getOrPatchState(key, compute);
  }

  setTitle(title: string | null): Promise<void> {
    return this.change("title change of session", { title });
  }

  setMetadata(patch: { [key: string]: JsonValue | null }): Promise<void> {
    return this.change("metadata change of session", { metadata: patch });
  }

  private async change(what: string, change: SessionRecordChange): Promise<void> {
    refuseIfAborted(this.run.abort, what, this.sessionId);
    if (this.run.fence !== undefined) this.run.checkLease(what, this.sessionId);
    if (this.writer === undefined) {
      throw new Error("This run was built without a session record writer (RunDependencies.sessions).");
    }
    await this.writer.change(this.sessionId, change);
  }
}
