import { errorFromResponse, FlowClientError } from "./errors.js";
import type { FlowsLike } from "./flow-views.js";
import {
  type StreamOptions,
  type SubscribeOptions,
  streamRequestEvents,
  subscribeToEvents,
} from "./request-stream.js";
import { createResourceClient, type ResourceClient } from "./resources.js";
import type { FlowStreamEvent, TerminalStreamEvent } from "./stream-events.js";
import { type CallOptions, type FetchLike, type HeadersOption, route, Transport } from "./transport.js";
import type { TypedFlowClient } from "./typed-client.js";
import type {
  ActiveRequest,
  ActiveRequestPage,
  CreateSessionBody,
  FlowRequest,
  FlowSession,
  FlowSummary,
  InvokeBody,
  InvokeResult,
  JsonValue,
  PageQuery,
  RequestStatus,
  ResourceManifest,
  SessionChange,
  SessionPage,
  SessionRemoval,
  SessionRequestPage,
  Snapshot,
} from "./types.js";

export interface FlowClientOptions {
  /**
   * Origin (and any path prefix) of the server, e.g. `https://api.example.com`. An empty string makes
   * same-origin relative URLs, which is what a page served by the flowrt host itself wants.
   */
  baseUrl: string;
  /** Where the host mounts the API. @default "/api/flows" */
  basePath?: string;
  /** The `fetch` to use. @default globalThis.fetch */
  fetch?: FetchLike;
  /**
   * Headers sent with every request. A function is called before each request (and each stream
   * reconnect), so it can return a fresh token.
   * @example headers: async () => ({ authorization: `Bearer ${await getToken()}` })
   */
  headers?: HeadersOption;
}

/** The stream of an action called with `Accept: text/event-stream`. */
export interface InvokeStream {
  /**
   * From the `X-Request-Id` header, else from the first event. A cross-origin page reads that header
   * only when the server lists it in `Access-Control-Expose-Headers`.
   */
  readonly requestId: string | undefined;
  /** From the `X-Session-Id` header, else from the `request.started` event. */
  readonly sessionId: string | undefined;
  /** The events, resumed through `GET /requests/:id/stream` if the connection drops. */
  readonly events: AsyncGenerator<FlowStreamEvent, TerminalStreamEvent | undefined>;
}

export interface FlowClient {
  /** GET `/`: every flow instance the host serves. */
  listFlows(options?: CallOptions): Promise<FlowSummary[]>;
  /** POST `/:flowId/sessions` (201). */
  createSession(flowId: string, body?: CreateSessionBody, options?: CallOptions): Promise<FlowSession>;
  /** GET `/sessions/:id`. */
  getSession(sessionId: string, options?: CallOptions): Promise<FlowSession>;
  /**
   * GET `/sessions`: one page of the caller's sessions, newest first (50 unless `limit` says otherwise); `userId`
   * and `flowId` only narrow the set. {@link listSessionsPage} also gives the next page's cursor.
   */
  listSessions(
    query?: { userId?: string; flowId?: string } & PageQuery,
    options?: CallOptions,
  ): Promise<FlowSession[]>;
  /** GET `/sessions` as a page: `{ sessions, nextCursor }` (`nextCursor: null` on the last page). */
  listSessionsPage(
    query?: { userId?: string; flowId?: string } & PageQuery,
    options?: CallOptions,
  ): Promise<SessionPage>;
  /** PATCH `/sessions/:id`: a new title (`null` removes it) and metadata merged one level deep (`null` removes a key). */
  updateSession(sessionId: string, change: SessionChange, options?: CallOptions): Promise<FlowSession>;
  /** PATCH `/sessions/:id` with a title only; `null` removes it. */
  renameSession(sessionId: string, title: string | null, options?: CallOptions): Promise<FlowSession>;
  /**
   * DELETE `/sessions/:id`: aborts its running requests and removes it, the sessions beneath it and everything
   * stored under them; what was removed. A second call rejects with 404 `session-not-found`.
   */
  deleteSession(sessionId: string, options?: CallOptions): Promise<SessionRemoval>;
  /** GET `/sessions/:id/requests`: one page of the requests that ran in a session, newest first. */
  listSessionRequests(
    sessionId: string,
    query?: PageQuery,
    options?: CallOptions,
  ): Promise<SessionRequestPage>;
  /** GET `/sessions/:id/children`: sessions dispatched beneath this one. */
  children(sessionId: string, options?: CallOptions): Promise<FlowSession[]>;
  /** GET `/active-requests`: one page of the caller's queued and running requests, oldest first. */
  activeRequests(query?: { userId?: string } & PageQuery, options?: CallOptions): Promise<ActiveRequest[]>;
  /** GET `/active-requests` as a page: `{ requests, nextCursor }`. */
  activeRequestsPage(
    query?: { userId?: string } & PageQuery,
    options?: CallOptions,
  ): Promise<ActiveRequestPage>;
  /** GET `/sessions/:id/manifest`: the client-visible resources of the session's flow. */
  manifest(sessionId: string, options?: CallOptions): Promise<ResourceManifest>;
  /**
   * GET `/sessions/:id/state`. `T` lets a caller state the shape its own flow projects; the client
   * does not check it.
   */
  snapshot<T extends Snapshot = Snapshot>(sessionId: string, options?: CallOptions): Promise<T>;
  /** POST `/:flowId/actions/:action` (202). Without `sessionId` the server creates a session. */
  invoke<TInput = unknown>(
    flowId: string,
    action: string,
    body: InvokeBody<TInput>,
    options?: CallOptions,
  ): Promise<InvokeResult>;
  /**
   * POST `/:flowId/actions/:action` with `Accept: text/event-stream`: the request's events inline.
   * The POST is sent once (it is not idempotent); a dropped stream is resumed by request id.
   */
  invokeAndStream<TInput = unknown>(
    flowId: string,
    action: string,
    body: InvokeBody<TInput>,
    options?: StreamOptions,
  ): Promise<InvokeStream>;
  /** GET `/requests/:id`. `TOutput` is the caller's claim about the action's output. */
  getRequest<TOutput = JsonValue>(requestId: string, options?: CallOptions): Promise<FlowRequest<TOutput>>;
  /** POST `/requests/:id/abort` (202); 409 `request-finished` when it already ended. */
  abort(requestId: string, options?: CallOptions): Promise<{ status: RequestStatus }>;
  /** POST `/requests/:id/retry` (202): a new request with the same input. */
  retry(requestId: string, options?: CallOptions): Promise<InvokeResult>;
  /** The resource endpoints of one resource or collection of a session. */
  resources<TClientData = JsonValue>(sessionId: string, ref: string): ResourceClient<TClientData>;
  /**
   * GET `/requests/:id/stream` as an async iterator that resumes across dropped connections and ends
   * after the terminal event (its return value). Breaking out of the loop closes the connection.
   */
  events(
    requestId: string,
    options?: StreamOptions,
  ): AsyncGenerator<FlowStreamEvent, TerminalStreamEvent | undefined>;
  /**
   * The same stream through a callback. Resolves with the terminal event, or `undefined` when stopped
   * through `signal`; rejects with a {@link FlowClientError} when the stream cannot be (re)opened.
   */
  subscribe(requestId: string, options: SubscribeOptions): Promise<TerminalStreamEvent | undefined>;
}

function invalidBody(what: string, status: number): FlowClientError {
  return new FlowClientError({
    status,
    code: "invalid-response",
    title: "Invalid response",
    detail: `The answer has no ${what}.`,
  });
}

type Answer = { status: number; body: Record<string, unknown> };

/** The body of an answer each of whose `names` passes `present`, refused with the answer's real status otherwise. */
async function carrying(
  answer: Promise<Answer>,
  names: string[],
  present: (value: unknown) => boolean,
): Promise<Record<string, unknown>> {
  const { status, body } = await answer;
  for (const name of names) {
    const value = typeof body === "object" && body !== null ? body[name] : undefined;
    if (!present(value)) throw invalidBody(`"${name}"`, status);
  }
  return body;
}

/**
 * A listing's page: its rows under `rows` (an array) and `nextCursor` (a string, or `null` on the last page; a
 * server from before listings were paged sends none, which reads as `null`).
 */
async function page<T>(answer: Promise<Answer>, rows: string): Promise<T> {
  const { status, body } = await answer;
  const value = typeof body === "object" && body !== null ? body : {};
  if (!Array.isArray(value[rows])) throw invalidBody(`"${rows}"`, status);
  const next = value.nextCursor ?? null;
  if (next !== null && typeof next !== "string") throw invalidBody('"nextCursor"', status);
  return { [rows]: value[rows], nextCursor: next } as T;
}

/** The query of a page: `limit` and `cursor` when given. */
function pageQuery(query: PageQuery): Record<string, string | number | undefined> {
  return { limit: query.limit, cursor: query.cursor };
}

/** Takes one field out of an answer, refusing an answer that lacks it. */
async function field<T>(answer: Promise<Answer>, name: string): Promise<T> {
  return (await carrying(answer, [name], (value) => value !== undefined))[name] as T;
}

/** An answer that must carry string `names` (an action's `{ requestId, sessionId }`), refused without them. */
async function withIds<T>(answer: Promise<Answer>, ...names: string[]): Promise<T> {
  return (await carrying(answer, names, (value) => typeof value === "string")) as T;
}

function checkId(name: string, value: unknown): string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(
      `${name} must be a non-empty string (got ${JSON.stringify(value) ?? String(value)}).`,
    );
  }
  return value;
}

/**
 * A typed client for the flowrt HTTP API. Runs wherever `fetch` and web streams exist (browsers,
 * Node 22+, Deno, Bun, workers).
 * @example
 * const client = createFlowClient({ baseUrl: "", headers: async () => ({ authorization: `Bearer ${token}` }) });
 * const { requestId } = await client.invoke("notebook", "addNote", { input: { key: "a", title: "A" } });
 * for await (const event of client.events(requestId)) console.log(event.type);
 */
export function createFlowClient(options: FlowClientOptions): FlowClient;
/**
 * The same client typed by the application's flows: pass their type, `createFlowClient<typeof flows>(options)`,
 * where `flows` is a flow, an array of flows (as given to `createFlowHost`) or an object of flows. Flow ids,
 * action names, inputs and resource refs are then checked at compile time; see {@link TypedFlowClient}.
 * @example
 * import type { flows } from "../server/flows.js"; // type-only: no server code reaches the bundle
 * const client = createFlowClient<typeof flows>({ baseUrl: "" });
 * await client.invoke("notebook", "addNote", { input: { title: "Milk" } });
 */
export function createFlowClient<TFlows extends FlowsLike>(
  options: FlowClientOptions,
): TypedFlowClient<TFlows>;
export function createFlowClient(options: FlowClientOptions): unknown {
  // The typed client is this same object: its types narrow the untyped client's, they add no behaviour.
  return buildFlowClient(options);
}

function buildFlowClient(options: FlowClientOptions): FlowClient {
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (typeof fetchImpl !== "function")
    throw new TypeError("No fetch is available: pass `fetch` in the options.");
  if (typeof options.baseUrl !== "string")
    throw new TypeError('`baseUrl` must be a string ("" for same-origin).');
  const transport = new Transport({
    baseUrl: options.baseUrl,
    basePath: options.basePath ?? "/api/flows",
    fetch: fetchImpl,
    headers: options.headers,
  });
  const get = (path: string, call?: CallOptions, query?: Record<string, string | number | undefined>) =>
    transport.answer<Record<string, unknown>>("GET", path, { call, query });
  const post = (path: string, body: unknown, call?: CallOptions) =>
    transport.answer<Record<string, unknown>>("POST", path, { body, call });
  const patch = (path: string, body: unknown, call?: CallOptions) =>
    transport.answer<Record<string, unknown>>("PATCH", path, { body, call });
  const remove = (path: string, call?: CallOptions) =>
    transport.answer<Record<string, unknown>>("DELETE", path, { call });
  const sessionsPage = (query: { userId?: string; flowId?: string } & PageQuery, call?: CallOptions) =>
    page<SessionPage>(
      get("/sessions", call, { userId: query.userId, flowId: query.flowId, ...pageQuery(query) }),
      "sessions",
    );
  const activePage = (query: { userId?: string } & PageQuery, call?: CallOptions) =>
    page<ActiveRequestPage>(
      get("/active-requests", call, { userId: query.userId, ...pageQuery(query) }),
      "requests",
    );
  const updateSession: FlowClient["updateSession"] = async (sessionId, change, call) =>
    field(patch(route`/sessions/${sessionId}`, change, call), "session");

  const events: FlowClient["events"] = (requestId, streamOptions = {}) =>
    streamRequestEvents(transport, { requestId: checkId("requestId", requestId) }, streamOptions);

  return {
    listFlows: (call) => field(get("/", call), "flows"),
    createSession: async (flowId, body = {}, call) =>
      field(post(route`/${flowId}/sessions`, body, call), "session"),
    getSession: async (sessionId, call) => field(get(route`/sessions/${sessionId}`, call), "session"),
    listSessions: async (query = {}, call) => (await sessionsPage(query, call)).sessions,
    listSessionsPage: (query = {}, call) => sessionsPage(query, call),
    updateSession,
    renameSession: (sessionId, title, call) => updateSession(sessionId, { title }, call),
    deleteSession: async (sessionId, call) =>
      field<SessionRemoval>(remove(route`/sessions/${sessionId}`, call), "removed"),
    listSessionRequests: async (sessionId, query = {}, call) =>
      page<SessionRequestPage>(
        get(route`/sessions/${sessionId}/requests`, call, pageQuery(query)),
        "requests",
      ),
    children: async (sessionId, call) => field(get(route`/sessions/${sessionId}/children`, call), "sessions"),
    activeRequests: async (query = {}, call) => (await activePage(query, call)).requests,
    activeRequestsPage: (query = {}, call) => activePage(query, call),
    manifest: async (sessionId, call) =>
      (await get(route`/sessions/${sessionId}/manifest`, call)).body as unknown as ResourceManifest,
    snapshot: async <T extends Snapshot>(sessionId: string, call?: CallOptions) =>
      (await get(route`/sessions/${sessionId}/state`, call)).body as unknown as T,
    invoke: async (flowId, action, body, call) =>
      withIds<InvokeResult>(post(route`/${flowId}/actions/${action}`, body, call), "requestId", "sessionId"),
    invokeAndStream: async (flowId, action, body, streamOptions = {}) => {
      const response = await transport.send("POST", route`/${flowId}/actions/${action}`, {
        body,
        accept: "text/event-stream",
        call: streamOptions,
      });
      if (!response.ok) throw await errorFromResponse(response);
      const type = response.headers.get("content-type") ?? "";
      let requestId = response.headers.get("x-request-id") ?? undefined;
      let sessionId = response.headers.get("x-session-id") ?? undefined;
      let opened: Response | undefined = response;
      if (!type.includes("text/event-stream")) {
        // A server (or proxy) that answers 202 JSON instead: follow the request through its stream route.
        const accepted = (await response.json().catch(() => undefined)) as Partial<InvokeResult> | undefined;
        if (typeof accepted?.requestId !== "string")
          throw invalidBody('"requestId" nor an event stream', response.status);
        requestId = accepted.requestId;
        sessionId = accepted.sessionId;
        opened = undefined;
      }
      const stream = streamRequestEvents(
        transport,
        {
          ...(requestId !== undefined ? { requestId } : {}),
          ...(opened ? { response: opened } : {}),
          observe: (event) => {
            if (requestId === undefined && typeof event.requestId === "string") requestId = event.requestId;
            const started = event as { type: string; sessionId?: unknown };
            if (
              sessionId === undefined &&
              started.type === "request.started" &&
              typeof started.sessionId === "string"
            ) {
              sessionId = started.sessionId;
            }
          },
        },
        streamOptions,
      );
      return {
        get requestId() {
          return requestId;
        },
        get sessionId() {
          return sessionId;
        },
        events: stream,
      };
    },
    getRequest: async <TOutput>(requestId: string, call?: CallOptions) =>
      field<FlowRequest<TOutput>>(get(route`/requests/${requestId}`, call), "request"),
    abort: async (requestId, call) =>
      withIds<{ status: RequestStatus }>(
        post(route`/requests/${requestId}/abort`, undefined, call),
        "status",
      ),
    retry: async (requestId, call) =>
      withIds<InvokeResult>(
        post(route`/requests/${requestId}/retry`, undefined, call),
        "requestId",
        "sessionId",
      ),
    resources: (sessionId, ref) =>
      createResourceClient(transport, checkId("sessionId", sessionId), checkId("ref", ref)),
    events,
    subscribe: async (requestId, subscribeOptions) => {
      const { onEvent, ...streamOptions } = subscribeOptions;
      if (typeof onEvent !== "function") throw new TypeError("subscribe needs an `onEvent` function.");
      return subscribeToEvents(events(requestId, streamOptions), onEvent);
    },
  };
}
