import type { SessionRecord } from "@flowrt/core";
import type { AccessControl } from "../access/access-control.js";
import type { Caller } from "../access/caller.js";
import { readSessionChange, type SessionChange } from "./session-patch.js";
import type { SessionService } from "./session-service.js";

/**
 * `PATCH /sessions/:id` (`host.updateSession`): the addressed route's owner check, then the change (see
 * `session-patch.ts` for its rules; the store merges the metadata atomically). A closed host refuses it, as every
 * write. The session as stored afterwards.
 */
export async function updateSession(
  deps: { access: AccessControl; sessions: SessionService; ready: () => Promise<void> | undefined },
  sessionId: string,
  caller: Caller,
  change: SessionChange,
): Promise<SessionRecord> {
  const starting = deps.ready();
  if (starting) await starting;
  const { session } = await deps.access.authorizeSession(sessionId, caller);
  // The owner first: a refused caller learns nothing of what the change would have been told.
  return deps.sessions.change(session, readSessionChange(change));
}
