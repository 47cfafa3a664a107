/**
 * The baseline: a bare Express 5 app serving the same paths and JSON shapes from Maps, doing the work a
 * hand-written endpoint honestly does: look the session up and check the `x-user-id` owner header
 * (401/403/404), parse the JSON body (`express.json()`), validate it, seed and validate state with the
 * same zod schema, keep keys sorted for pages, answer JSON (problem+json on refusals). The data and the
 * JSON shapes are `http-bare-sessions.ts`, shared with the bare `node:http` server.
 */
import express, { type Express, type Request, type Response } from "express";
import {
  type BareSession,
  createBareSessions,
  isRefusal,
  lowerBound,
  ownedSession,
  pageOf,
  problemBody,
  type Refusal,
  readInteger,
  refusal,
  snapshotOf,
  toPath,
} from "./http-bare-sessions.js";
import { BASE_PATH, COLLECTION, itemStateSchema, USER_HEADER } from "./http-fixture.js";

function problem(res: Response, status: number, code: string, detail: string): void {
  res.status(status).type("application/problem+json").json(problemBody({ status, code, detail }));
}

const refuse = (res: Response, no: Refusal) => problem(res, no.status, no.code, no.detail);

export interface BareApp {
  app: Express;
  readSessionId: string;
  writeSessionId: string;
}

export function createBareApp(count: number): BareApp {
  const sessions = createBareSessions(count);

  /** The owner check every addressed route runs first; answers the refusal itself and returns undefined. */
  const ownedBy = (req: Request, res: Response): BareSession | undefined => {
    const session = ownedSession(sessions, req.params.sessionId as string, req.get(USER_HEADER));
    if (isRefusal(session)) return void refuse(res, session);
    return session;
  };
  /** The owner check, then the resource reference. */
  const owned = (req: Request, res: Response): BareSession | undefined => {
    const session = ownedBy(req, res);
    if (!session) return undefined;
    if (req.params.ref === COLLECTION) return session;
    return void refuse(res, refusal(404, "resource-not-found", "No such resource."));
  };

  const app = express();
  app.disable("x-powered-by");
  app.disable("etag"); // flowrt sends no ETag either
  const base = `${BASE_PATH}/sessions/:sessionId/resources/:ref`;

  app.get(`${BASE_PATH}/sessions/:sessionId/state`, (req, res) => {
    const session = ownedBy(req, res);
    if (!session) return;
    res.json(snapshotOf(session));
  });

  app.get(base, (req, res) => {
    const session = owned(req, res);
    if (!session) return;
    const limit = readInteger(req.query.limit, 50);
    const offset = readInteger(req.query.offset, 0);
    if (limit === null || offset === null || limit === 0) {
      return problem(res, 400, "invalid-pagination", "limit and offset must be non-negative integers.");
    }
    res.json(pageOf(session, offset, Math.min(limit, 200)));
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
