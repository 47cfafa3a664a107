/**
 * The engine's peer without a framework: a bare `node:http` request listener doing the work of the bare Express
 * app (`http-bare-app.ts`) on the same data (`http-bare-sessions.ts`): the same routes, owner check, validation,
 * JSON shapes and status codes, with routing, the JSON body (`application/json` only, 100 KiB at most, as
 * `express.json()`'s defaults) and the answer written by hand, as a service on `node:http` alone would.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
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

const BODY_LIMIT = 100 * 1024;
const JSON_TYPE = "application/json; charset=utf-8";
const PROBLEM_TYPE = "application/problem+json; charset=utf-8";
const SESSIONS = `${BASE_PATH}/sessions/`;

function send(res: ServerResponse, status: number, body: unknown, type = JSON_TYPE): void {
  const text = JSON.stringify(body);
  res.writeHead(status, ["content-type", type, "content-length", String(Buffer.byteLength(text))]);
  res.end(text);
}

const refuse = (res: ServerResponse, no: Refusal) => send(res, no.status, problemBody(no), PROBLEM_TYPE);

/** What reading a JSON body gives: the body (`undefined` when it is not `application/json`), or the refusal. */
type BodyRead = { body: unknown; refused?: undefined } | { refused: Refusal };

/** The JSON body, or a refusal when too large or not JSON. */
function readJson(req: IncomingMessage): Promise<BodyRead> {
  if (!/^application\/json\s*(;|$)/i.test(req.headers["content-type"] ?? "")) {
    req.resume();
    return Promise.resolve({ body: undefined });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const collect = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) return void chunks.push(chunk);
      // The rest is read and dropped, so the connection stays usable for the answer.
      req.off("data", collect).off("end", parse).resume();
      resolve({ refused: refusal(413, "payload-too-large", "The body is larger than 100 KiB.") });
    };
    const parse = () => {
      try {
        resolve({ body: JSON.parse(Buffer.concat(chunks, size).toString("utf8")) as unknown });
      } catch {
        resolve({ refused: refusal(400, "invalid-json", "The body is not JSON.") });
      }
    };
    req.on("data", collect).on("end", parse).on("error", reject);
  });
}

export interface BareNode {
  listener: RequestListener;
  readSessionId: string;
  writeSessionId: string;
}

export function createBareNode(count: number): BareNode {
  const sessions = createBareSessions(count);

  const create = async (req: IncomingMessage, res: ServerResponse, session: BareSession) => {
    const read = await readJson(req);
    if (read.refused) return refuse(res, read.refused);
    const body = read.body as { topic?: unknown; content?: unknown } | undefined;
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return refuse(res, refusal(400, "invalid-request", "The body must be an object."));
    if (typeof body.topic !== "string" || body.topic === "")
      return refuse(res, refusal(400, "invalid-request", '"topic" must be a non-empty string.'));
    if (body.content !== undefined && typeof body.content !== "string")
      return refuse(res, refusal(400, "invalid-request", '"content" must be a string.'));
    const path = toPath(body.topic);
    if (path === null) return refuse(res, refusal(400, "invalid-key", "The topic does not fit items/*."));
    if (session.state.has(path)) return refuse(res, refusal(409, "topic-exists", "The topic exists."));
    const state = itemStateSchema.parse({});
    session.state.set(path, state);
    session.keys.splice(lowerBound(session.keys, path), 0, path);
    if (body.content !== undefined) session.content.set(path, body.content);
    send(res, 201, { topic: path, clientData: state });
  };

  const patchContent = async (
    req: IncomingMessage,
    res: ServerResponse,
    session: BareSession,
    topic: string,
  ) => {
    const read = await readJson(req);
    if (read.refused) return refuse(res, read.refused);
    const content = (read.body as { content?: unknown } | undefined)?.content;
    if (typeof content !== "string")
      return refuse(res, refusal(400, "invalid-request", '"content" must be a string.'));
    const path = toPath(topic);
    if (path === null || !session.state.has(path))
      return refuse(res, refusal(404, "instance-not-found", "No such item."));
    session.content.set(path, content);
    send(res, 200, { topic: path });
  };

  const item = (res: ServerResponse, session: BareSession, method: string, topic: string) => {
    const path = toPath(topic);
    if (method === "GET") {
      const state = path === null ? undefined : session.state.get(path);
      if (state === undefined) return refuse(res, refusal(404, "instance-not-found", "No such item."));
      return send(res, 200, { topic: path, clientData: state });
    }
    const deleted = path !== null && session.state.delete(path);
    if (deleted) {
      session.content.delete(path);
      session.keys.splice(lowerBound(session.keys, path), 1);
    }
    send(res, 200, { topic: path, deleted });
  };

  const list = (res: ServerResponse, session: BareSession, search: string) => {
    const query = new URLSearchParams(search);
    const limit = readInteger(query.get("limit") ?? undefined, 50);
    const offset = readInteger(query.get("offset") ?? undefined, 0);
    if (limit === null || offset === null || limit === 0)
      return refuse(
        res,
        refusal(400, "invalid-pagination", "limit and offset must be non-negative integers."),
      );
    send(res, 200, pageOf(session, offset, Math.min(limit, 200)));
  };

  /** `/api/flows/sessions/:sessionId/(state | resources/:ref[/:topic[/content]])`, by method. */
  const route = (req: IncomingMessage, res: ServerResponse): void | Promise<void> => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    // One trailing slash names the same route, as Express's non-strict routing has it.
    const pathname = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
    const method = req.method ?? "GET";
    if (!pathname.startsWith(SESSIONS)) return refuse(res, refusal(404, "not-found", "No such route."));
    const [sessionId, what, ref, topic, tail, ...rest] = pathname
      .slice(SESSIONS.length)
      .split("/")
      .map(decodeURIComponent);
    const isState = what === "state" && ref === undefined;
    const isResource = what === "resources" && ref !== undefined && ref !== "" && rest.length === 0;
    const allowed = isState
      ? method === "GET"
      : isResource &&
        (topic === undefined
          ? method === "GET" || method === "POST"
          : tail === undefined
            ? method === "GET" || method === "DELETE"
            : tail === "content" && method === "PATCH");
    if (!sessionId || !allowed) return refuse(res, refusal(404, "not-found", "No such route."));
    const session = ownedSession(sessions, sessionId, req.headers[USER_HEADER] as string | undefined);
    if (isRefusal(session)) return refuse(res, session);
    if (isState) return send(res, 200, snapshotOf(session));
    if (ref !== COLLECTION) return refuse(res, refusal(404, "resource-not-found", "No such resource."));
    if (topic === undefined)
      return method === "GET" ? list(res, session, q < 0 ? "" : url.slice(q + 1)) : create(req, res, session);
    if (tail === "content") return patchContent(req, res, session, topic);
    item(res, session, method, topic);
  };

  const fail = (res: ServerResponse, error: unknown) => {
    // A path that does not decode is the client's; anything else is this server's, and its message stays here.
    if (error instanceof URIError)
      return refuse(res, refusal(400, "invalid-path", "The path does not decode."));
    process.stderr.write(`bare-node failed: ${String(error)}\n`);
    if (res.headersSent) res.destroy();
    else refuse(res, refusal(500, "internal", "The server failed."));
  };
  // Synchronous for the routes without a body; only reading one makes a promise.
  const listener: RequestListener = (req, res) => {
    try {
      route(req, res)?.catch((error: unknown) => fail(res, error));
    } catch (error) {
      fail(res, error);
    }
  };
  return { listener, readSessionId: "read", writeSessionId: "write" };
}
