/**
 * What every server under test serves: one collection `items` (pattern `items/*`, session scope, state
 * `{ title, n }`, its first {@link PREFETCH_WINDOW} items in the session's snapshot) open to the client, in
 * sessions owned by {@link BENCH_USER}, the caller naming itself in the `x-user-id` header, and the session's
 * `touches` counter in the snapshot's `clientData`. The load generator sends identical requests to the flowrt
 * servers (Express adapter, or the engine's handler on `node:http`) and to the bare ones (Express, `node:http`),
 * so all mount the same paths.
 */
import { z } from "zod";

export const BENCH_USER = "bench-user";
export const USER_HEADER = "x-user-id";
export const BASE_PATH = "/api/flows";
export const FLOW_ID = "bench";
export const COLLECTION = "items";
export const ITEM_PREFIX = "items/";
/** How many items of the collection the session snapshot inlines (the collection's `prefetchWindow`). */
export const PREFETCH_WINDOW = 10;

/** The item state schema, shared so the bare app seeds and validates exactly as the collection does. */
export const itemStateSchema = z.object({ title: z.string().default(""), n: z.number().default(0) });

/** Storage key of the `i`th seeded item; zero-padded so lexicographic order is numeric order. */
export const seededKey = (i: number) => `${ITEM_PREFIX}${String(i).padStart(8, "0")}`;

export const seededState = (i: number) => ({ title: `item ${i}`, n: i });

export const seededContent = (i: number) => `Body of item ${i}.`;

/** Path of the collection below a session, as a client addresses it. */
export const collectionPath = (sessionId: string) =>
  `${BASE_PATH}/sessions/${encodeURIComponent(sessionId)}/resources/${COLLECTION}`;

/** Path of one item: the full storage key with `/` sent as `%2F` (routing rule 1). */
export const itemPath = (sessionId: string, key: string) =>
  `${collectionPath(sessionId)}/${encodeURIComponent(key)}`;

/** Path of a session's snapshot (`GET`): its scopes' client data and its resources' entries. */
export const snapshotPath = (sessionId: string) =>
  `${BASE_PATH}/sessions/${encodeURIComponent(sessionId)}/state`;

export const actionPath = (action: string) => `${BASE_PATH}/${FLOW_ID}/actions/${action}`;

/** What the child process reports once it listens (over IPC). */
export interface ServerReady {
  type: "ready";
  port: number;
  /** Session whose collection holds the seeded items (reads, actions). */
  readSessionId: string;
  /** Empty session that creates, patches and deletes go to, so reads see a stable collection. */
  writeSessionId: string;
  /** How many items the read session holds. */
  items: number;
  /** The file `@flowrt/engine` resolved to in the server's process (which checkout's build it runs). */
  engine: string;
}

/** Parent → child messages. */
export type ParentMessage = { type: "usage"; id: number } | { type: "close" };

/** Child → parent messages. */
export type ChildMessage =
  | ServerReady
  | ({ type: "usage"; id: number } & ServerUsage)
  | { type: "error"; message: string };

/** What the child reports about itself on request. */
export interface ServerUsage {
  rss: number;
  heapUsed: number;
  /** CPU time used so far, user + system, in µs. */
  cpuUs: number;
  /** flowrt only: requests (actions) seen failed or aborted so far. */
  failedRequests: number;
  /** flowrt only: requests queued or running at the last housekeeping pass. */
  unfinishedRequests: number;
}

/**
 * The kinds of server `http-server.ts` can start: flowrt through its Express adapter, the bare Express app, the
 * engine's transport-neutral handler on a minimal `node:http` wrapper, and a bare `node:http` server.
 */
export const SERVER_KINDS = ["flowrt", "bare", "flowrt-node", "bare-node"] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

/** Whether a kind runs flowrt (its engine build is checked and reported). */
export const isFlowrtKind = (kind: ServerKind) => kind === "flowrt" || kind === "flowrt-node";
