/**
 * The baseline: a bare Express 5 app serving the same paths and JSON shapes from Maps, doing the work a
 * hand-written endpoint honestly does: look the session up and check the `x-user-id` owner header
 * (401/403/404), parse the JSON body (`express.json()`), validate it, seed and validate state with the
 * same zod schema, keep keys sorted for pages, answer JSON (problem+json on refusals).
 */
import express, { type Express, type Request, type Response } from "express";
import {
  BASE_PATH,
  BENCH_USER,
  COLLECTION,
  FLOW_ID,
  ITEM_PREFIX,
  itemStateSchema,
  seededContent,
  seededKey,
  seededState,
  USER_HEADER,
} from "./http-fixture.js";

type ItemState = { title: string; n: number };

interface BareSession {
  userId: string;
  state: Map<string, ItemState>;
  content: Map<string, string>;
  /** Keys in lexicographic order, for pages. */
  keys: string[];
}

function problem(res: Response, status: number, code: string, detail: string): void {
  res.status(status).type("application/problem+json").json({ type: "about:blank", status, code, detail });
}

/** Index of `key` in sorted `keys`, or where it would be inserted. */
function lowerBound(keys: string[], key: string): number {
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
function toPath(topic: string): string | null {
  const path = topic.startsWith(ITEM_PREFIX) ? topic : `${ITEM_PREFIX}${topic}`;
  const rest = path.slice(ITEM_PREFIX.length);
  return rest === "" || rest.includes("/") ? null : path;
}

function readInteger(raw: unknown, fallback: number): number | null {
  if (raw === undefined || raw === "") return fallback;
  return typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : null;
}

export interface BareApp {
  app: Express;
  readSessionId: string;
  writeSessionId: string;
}

export function createBareApp(count: number): BareApp {
  const sessions = new Map<string, BareSession>();
  const newSession = (id: string) => {
    const session: BareSession = { userId: BENCH_USER, state: new Map(), content: new Map(), keys: [] };
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

  /** The owner check every addressed route runs first; answers the refusal itself and returns undefined. */
  const owned = (req: Request, res: Response): BareSession | undefined => {
    const session = sessions.get(req.params.sessionId as string);
    const user = req.get(USER_HEADER);
    if (!session) problem(res, 404, "session-not-found", "No such session.");
    else if (!user) problem(res, 401, "unauthenticated", "No user.");
    else if (user !== session.userId) problem(res, 403, "forbidden", "Not your session.");
    else if (req.params.ref !== COLLECTION) problem(res, 404, "resource-not-found", "No such resource.");
    else return session;
    return undefined;
  };

  const app = express();
  app.disable("x-powered-by");
  app.disable("etag"); // flowrt sends no ETag either
  const base = `${BASE_PATH}/sessions/:sessionId/resources/:ref`;

  app.get(base, (req, res) => {
    const session = owned(req, res);
    if (!session) return;
    const limit = readInteger(req.query.limit, 50);
    const offset = readInteger(req.query.offset, 0);
    if (limit === null || offset === null || limit === 0) {
      return problem(res, 400, "invalid-pagination", "limit and offset must be non-negative integers.");
    }
    const take = Math.min(limit, 200);
    const keys = session.keys.slice(offset, offset + take);
    const total = session.keys.length;
    const hasMore = offset + keys.length < total;
    const last = keys[keys.length - 1];
    // The next page's opaque cursor: what flowrt answers (the position after this page's last key).
    const nextCursor =
      hasMore && last !== undefined
        ? Buffer.from(
            JSON.stringify({ v: 1, f: FLOW_ID, r: req.params.ref, p: ITEM_PREFIX, k: last }),
            "utf8",
          ).toString("base64url")
        : null;
    res.json({
      items: keys.map((topic) => ({ topic, clientData: session.state.get(topic) })),
      pagination: { offset, limit: take, total, hasMore, nextOffset: offset + keys.length, nextCursor },
    });
  });

  app.post(base, express.json(), (req, res) => {
    const session = owned(req, res);
    if (!session) return;
    const body = req.body as { topic?: unknown; content?: unknown } | undefined;
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return problem(res, 400, "invalid-request", "The body must be an object.");
    }
    if (typeof body.topic !== "string" || body.topic === "") {
      return problem(res, 400, "invalid-request", '"topic" must be a non-empty string.');
    }
    if (body.content !== undefined && typeof body.content !== "string") {
      return problem(res, 400, "invalid-request", '"content" must be a string.');
    }
    const path = toPath(body.topic);
    if (path === null) return problem(res, 400, "invalid-key", "The topic does not fit items/*.");
    if (session.state.has(path)) return problem(res, 409, "topic-exists", "The topic exists.");
    const state = itemStateSchema.parse({});
    session.state.set(path, state);
    session.keys.splice(lowerBound(session.keys, path), 0, path);
    if (body.content !== undefined) session.content.set(path, body.content);
    res.status(201).json({ topic: path, clientData: state });
  });

  app.patch(`${base}/:topic/content`, express.json(), (req, res) => {
    const session = owned(req, res);
    if (!session) return;
    const content = (req.body as { content?: unknown } | undefined)?.content;
    if (typeof content !== "string")
      return problem(res, 400, "invalid-request", '"content" must be a string.');
    const path = toPath(req.params.topic as string);
    if (path === null || !session.state.has(path)) {
      return problem(res, 404, "instance-not-found", "No such item.");
    }
    session.content.set(path, content);
    res.json({ topic: path });
  });

  app.get(`${base}/:topic`, (req, res) => {
    const session = owned(req, res);
    if (!session) return;
    const path = toPath(req.params.topic as string);
    const state = path === null ? undefined : session.state.get(path);
    if (state === undefined) return problem(res, 404, "instance-not-found", "No such item.");
    res.json({ topic: path, clientData: state });
  });

  app.delete(`${base}/:topic`, (req, res) => {
    const session = owned(req, res);
    if (!session) return;
    const path = toPath(req.params.topic as string);
    const deleted = path !== null && session.state.delete(path);
    if (deleted) {
      session.content.delete(path);
      session.keys.splice(lowerBound(session.keys, path), 1);
    }
    res.json({ topic: path, deleted });
  });

  return { app, readSessionId: "read", writeSessionId: "write" };
}
