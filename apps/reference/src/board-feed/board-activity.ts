import { EventEmitter } from "node:events";

/**
 * In-process news of board writes: which org's board a request is changing. The board feed follows those
 * requests' event streams for the org's members (a request's stream is its owner's; the feed relays only the
 * board's changes).
 */
const activity = new EventEmitter<{ change: [orgId: string, requestId: string] }>();
activity.setMaxListeners(0);

export function announceBoardChange(orgId: string, requestId: string): void {
  activity.emit("change", orgId, requestId);
}

/** Calls `listener` with each request that changes `orgId`'s board; returns the unsubscribe function. */
export function onBoardChange(orgId: string, listener: (requestId: string) => void): () => void {
  const handle = (org: string, requestId: string) => {
    if (org === orgId) listener(requestId);
  };
  activity.on("change", handle);
  return () => activity.off("change", handle);
}
