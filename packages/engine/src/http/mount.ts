import type { FlowHost } from "../host.js";
import type { HostLogger } from "../logger.js";
import { answered, mountedPattern } from "./access-log.js";
import { createDispatcher, failureResponse, type HttpHandlerOptions } from "./handler.js";
import { LazyChildLogger } from "./lazy-child-logger.js";
import { DEFAULT_BODY_LIMIT } from "./request-body.js";
import { requestIdOf } from "./request-id.js";
import { type InboundRequest, InboundRoutes, inboundOptions, serveInbound } from "./routes/inbound.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/** A request as a transport mounted somewhere in an application's tree hands it to the engine. */
export interface MountedRequest extends InboundRequest {
  /** The path and query as seen where the transport is mounted (Express: `req.url` inside the router). */
  target: string;
}

/**
 * What a mounted transport asks the engine for each request: the answer to write, or `null` when neither the
 * API (below `host.basePath`) nor a custom inbound route serves it, and the request goes on to the
 * application. A JSON answer always comes as `bodyText` (serialised here) with its `content-length`, so a
 * transport writes text only.
 */
export type MountedHandler = (request: MountedRequest) => Promise<HttpResponse | null>;

export interface MountedHandlerOptions extends HttpHandlerOptions {
  /** The methods the transport can receive (Node: `http.METHODS`); a custom inbound route on another is refused. */
  methods?: Iterable<string>;
}

/** How a failure the API meets is logged (the message the Express adapter has always used). */
const API_FAILURE = "flow router failed";

function queryOf(search: string): HttpRequest["query"] {
  const query: Record<string, string | string[]> = {};
  if (search === "") return query;
  for (const [name, value] of new URLSearchParams(search)) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

/**
 * `target` relative to `basePath` (lower-case, no trailing `/`), always starting with `/`; `null` when its
 * path is not at or below the mount. Matched as Express mounts a router: any case, at a segment boundary.
 */
function belowMount(target: string, basePath: string): string | null {
  if (basePath === "") return target.startsWith("/") ? target : `/${target}`;
  if (target.length < basePath.length || target.slice(0, basePath.length).toLowerCase() !== basePath)
    return null;
  const rest = target.slice(basePath.length);
  if (rest === "" || rest[0] === "?") return `/${rest}`;
  return rest[0] === "/" ? rest : null;
}

/**
 * The API's view of a mounted request. The client-gone signal is the transport's, read only when an
 * event stream asks for it; `rawBody` is filled in by the handler when it reads `body`.
 */
class ApiRequest implements HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly url: string;
  readonly query: HttpRequest["query"];
  readonly headers: HttpRequest["headers"];
  rawBody?: Uint8Array;
  readonly body?: AsyncIterable<Uint8Array | string>;
  readonly id: string;
  readonly log: HostLogger;
  route?: string;
  readonly #source: MountedRequest;

  constructor(source: MountedRequest, relative: string, id: string, log: HostLogger) {
    const q = relative.indexOf("?");
    this.method = source.method;
    this.path = q < 0 ? relative : relative.slice(0, q);
    this.url = source.url;
    this.query = queryOf(q < 0 ? "" : relative.slice(q + 1));
    this.headers = source.headers;
    if (source.rawBody !== undefined) this.rawBody = source.rawBody;
    else if (source.body !== undefined) this.body = source.body;
    this.id = id;
    this.log = log;
    this.#source = source;
  }

  get signal(): AbortSignal | undefined {
    return this.#source.signal;
  }
}

/** Iterates `items`, telling `failed` about an error before passing it on. */
async function* reporting<T>(items: AsyncIterable<T>, failed: (error: unknown) => void): AsyncGenerator<T> {
  try {
    yield* items;
  } catch (error) {
    failed(error);
    throw error;
  }
}

/**
 * The engine's whole HTTP surface for a transport mounted in an application: custom inbound routes first
 * (matched on the path where the transport is mounted, so one below `basePath` wins over the API), then the
 * API below `host.basePath`, else `null`. The API's answers are made ready to write: JSON serialised, a HEAD
 * request's event stream left unopened, a stream's failure logged before the transport cuts the connection.
 * A JSON answer comes as `bodyText` with its `content-length`.
 *
 * @example
 * const handle = createMountedHandler(host, { bodyLimit: 64 * 1024 });
 * const response = await handle({ method, target: "/api/flows", url: "/api/flows", origin, headers, body });
 * if (response === null) next(); // not the host's: the application's own routes
 */
export function createMountedHandler(host: FlowHost, options: MountedHandlerOptions = {}): MountedHandler {
  const api = createDispatcher(host, options);
  const inbound = new InboundRoutes(host.inboundRoutes(), options.methods);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const basePath = host.basePath.toLowerCase();

  const serveApi = async (request: ApiRequest): Promise<HttpResponse> => {
    const response = await api(request);
    const fields = () => ({ method: request.method, route: request.route, path: request.path });
    if (response.stream) {
      if (request.method === "HEAD") return { status: response.status, headers: response.headers };
      const stream = {
        ...response.stream,
        // The status is sent: the failure is logged (with its stack) before the transport cuts the connection.
        frames: reporting(response.stream.frames, (error) =>
          request.log.error({ ...fields(), err: error }, API_FAILURE),
        ),
      };
      return { status: response.status, headers: response.headers, stream };
    }
    try {
      return withText(response);
    } catch (error) {
      // A body JSON cannot hold (a BigInt from application code): the server's failure, not the client's.
      return withText(failureResponse(host, request.log, error, API_FAILURE, fields()));
    }
  };

  return async (request) => {
    const startedAt = performance.now();
    const method = request.method.toUpperCase();
    const q = request.target.indexOf("?");
    const pathname = q < 0 ? request.target : request.target.slice(0, q);
    const route = inbound.match(method, pathname);
    if (route) {
      const id = requestIdOf(request.headers);
      const log = new LazyChildLogger(host.logger, { reqId: id });
      const response = withText(await serveInbound(host, route, request, bodyLimit, log));
      return answered(host, { method: request.method, id, route: route.path, startedAt }, response);
    }
    const relative = belowMount(request.target, basePath);
    if (relative !== null) {
      const id = requestIdOf(request.headers);
      const api = new ApiRequest(request, relative, id, new LazyChildLogger(host.logger, { reqId: id }));
      const response = await serveApi(api);
      const pattern = mountedPattern(host.basePath, api.route);
      return answered(host, { method: request.method, id, route: pattern, startedAt }, response);
    }
    if (method === "OPTIONS" && inbound.size > 0) {
      const allowed = inbound.allowedAt(pathname);
      if (allowed.length > 0) {
        const id = requestIdOf(request.headers);
        return answered(
          host,
          { method: request.method, id, route: undefined, startedAt },
          withText(inboundOptions(allowed)),
        );
      }
    }
    return null;
  };
}

/**
 * A JSON answer with its body as text and the text's `content-length`, ready to write as it is; other answers
 * (streams, a body-less one) unchanged.
 */
function withText(response: HttpResponse): HttpResponse {
  if (response.stream || response.chunks) return response;
  const bodyText =
    response.bodyText ?? (response.body === undefined ? undefined : JSON.stringify(response.body));
  if (bodyText === undefined) return response;
  // Every answer has a headers object of its own (`json`, `jsonText`, `problemResponse` make one each): the length
  // is added to it rather than to a copy.
  response.headers["content-length"] = String(Buffer.byteLength(bodyText));
  if (response.bodyText !== undefined) return response;
  const ready: HttpResponse = { status: response.status, headers: response.headers, bodyText };
  if (response.statusText !== undefined) ready.statusText = response.statusText;
  if (response.setCookie !== undefined) ready.setCookie = response.setCookie;
  return ready;
}
