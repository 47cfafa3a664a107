/**
 * What the two bare servers (`http-bare-app.ts` on Express, `http-bare-node.ts` on `node:http`) keep and compute
 * alike, as a hand-written service would: sessions in a Map, each with its items' state and content in Maps and
 * its keys in order for pages; the owner check; the page, the next-page cursor and the snapshot in flowrt's JSON
 * shapes. Only the transport work (routing, reading the body, writing the answer) differs between the two.
 */
import {
  BENCH_USER,
  COLLECTION,
  FLOW_ID,
  ITEM_PREFIX,
  PREFETCH_WINDOW,
  seededContent,
  seededKey,
  seededState,
} from "./http-fixture.js";

export type ItemState = { title: string; n: number };

export interface BareSession {
  userId: string;
  /** The session's own state; `touches` is what its snapshot shows clients. */
  touches: number;
  state: Map<string, ItemState>;
  content: Map<string, string>;
  /** Keys in lexicographic order, for pages. */
  keys: string[];
}

/** A refusal as problem+json: status and the body's `code` and `detail`. */
export interface Refusal {
  status: number;
  code: string;
  detail: string;
}

export const refusal = (status: number, code: string, detail: string): Refusal => ({ status, code, detail });

/** The problem+json body of a refusal. */
export const problemBody = ({ status, code, detail }: Refusal) => ({
  type: "about:blank",
  status,
  code,
  detail,
});

/** Index of `key` in sorted `keys`, or where it would be inserted. */
export function lowerBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `items/*` accepts a full key or the wildcard part, one non-empty segment (as the collection's toPath). */
export function toPath(topic: string): string | null {
  const path = topic.startsWith(ITEM_PREFIX) ? topic : `${ITEM_PREFIX}${topic}`;
  const rest = path.slice(ITEM_PREFIX.length);
  return rest === "" || rest.includes("/") ? null : path;
}

/** A query parameter as a non-negative integer, `fallback` when absent or empty, `null` when not one. */
export function readInteger(raw: unknown, fallback: number): number | null {
  if (raw === undefined || raw === "") return fallback;
  return typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : null;
}

/** The sessions `read` (holding `count` seeded items) and `write` (empty), both owned by the bench user. */
export function createBareSessions(count: number): Map<string, BareSession> {
  const sessions = new Map<string, BareSession>();
  const newSession = (id: string) => {
    const session: BareSession = {
      userId: BENCH_USER,
      touches: 0,
      state: new Map(),
      content: new Map(),
      keys: [],
    };
    sessions.set(id, session);
    return session;
  };
  const read = newSession("read");
  newSession("write");
  for (let i = 0; i < count; i++) {
    const key = seededKey(i);
    read.state.set(key, seededState(i));
    read.content.set(key, seededContent(i));
    read.keys.push(key);
  }
  read.keys.sort();
  return sessions;
}

/** The owner check every addressed route runs first: the session, or the refusal to answer. */
export function ownedSession(
  sessions: Map<string, BareSession>,
  sessionId: string,
  user: string | undefined,
): BareSession | Refusal {
  const session = sessions.get(sessionId);
  if (!session) return refusal(404, "session-not-found", "No such session.");
  if (!user) return refusal(401, "unauthenticated", "No user.");
  if (user !== session.userId) return refusal(403, "forbidden", "Not your session.");
  return session;
}

export const isRefusal = (value: BareSession | Refusal): value is Refusal => "code" in value;

/** The collection's page at `offset` (`take` items at most) in flowrt's shape, with the next page's cursor. */
export function pageOf(session: BareSession, offset: number, take: number) {
  const keys = session.keys.slice(offset, offset + take);
  const total = session.keys.length;
  const hasMore = offset + keys.length < total;
  const last = keys[keys.length - 1];
  // The next page's opaque cursor: what flowrt answers (the position after this page's last key).
  const nextCursor =
    hasMore && last !== undefined
      ? Buffer.from(
          JSON.stringify({ v: 1, f: FLOW_ID, r: COLLECTION, p: ITEM_PREFIX, k: last }),
          "utf8",
        ).toString("base64url")
      : null;
  return {
    items: keys.map((topic) => ({ topic, clientData: session.state.get(topic) })),
    pagination: { offset, limit: take, total, hasMore, nextOffset: offset + keys.length, nextCursor },
  };
}

/** The session's snapshot in flowrt's shape: its client data, the collection's count and first items. */
export function snapshotOf(session: BareSession) {
  const first = session.keys.slice(0, PREFETCH_WINDOW);
  return {
    clientData: { session: { touches: session.touches } },
    resources: {
      session: {
        [COLLECTION]: {
          count: session.keys.length,
          prefetched: first.map((topic) => ({ topic, clientData: session.state.get(topic) })),
        },
      },
    },
  };
}
