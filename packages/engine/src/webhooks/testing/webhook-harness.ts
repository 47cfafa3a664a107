/**
 * Test harness for the webhook transport: a host served through the transport-neutral HTTP layer,
 * stores that record every write a refusal must not make, signers for the preset formats (made with
 * node:crypto, independently of the verifiers under test) and a tiny node:http adapter for the tests
 * that need a real socket.
 */
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type {
  FlowStores,
  NewRequestEvent,
  RequestCreateOptions,
  RequestPatch,
  RequestRecord,
  RequestStatus,
  RequestUpdateEffects,
  SessionRecord,
} from "@flowrt/core";
import { createHttpHandler, type HttpHandler, type HttpResponse } from "@flowrt/engine";
import { createMemoryStores } from "@flowrt/store-memory";
import { createFlowHost, type FlowHost } from "../../host.js";
import type { FlowHostOptions } from "../../host-options.js";
import { silentLogger } from "../../logger.js";

export const SECRET = "whsec_transport_test";
export const BASE_PATH = "/api/flows";

const unixNow = () => Math.floor(Date.now() / 1000);

function hmacHex(secret: string, data: string | Buffer): string {
  return createHmac("sha256", secret).update(data).digest("hex");
}

/** `stripe-signature` for the alpha preset: `t=<ts>,v1=<hex of "<ts>.<body>">`. */
export function alphaSignature(body: string | Buffer, options: { secret?: string; timestamp?: number } = {}) {
  const t = options.timestamp ?? unixNow();
  const signed = Buffer.concat([Buffer.from(`${t}.`), Buffer.from(body)]);
  return `t=${t},v1=${hmacHex(options.secret ?? SECRET, signed)}`;
}

/** `x-hub-signature-256` for the beta preset: `sha256=<hex of the body>`. */
export function betaSignature(body: string | Buffer, secret = SECRET): string {
  return `sha256=${hmacHex(secret, Buffer.from(body))}`;
}

/** Slack-style headers for the gamma preset: `v0=<hex of "v0:<ts>:<body>">` and the timestamp. */
export function gammaHeaders(
  body: string | Buffer,
  options: { secret?: string; timestamp?: number } = {},
): Record<string, string> {
  const t = String(options.timestamp ?? unixNow());
  const signed = Buffer.concat([Buffer.from(`v0:${t}:`), Buffer.from(body)]);
  return {
    "x-slack-request-timestamp": t,
    "x-slack-signature": `v0=${hmacHex(options.secret ?? SECRET, signed)}`,
  };
}

/** Everything written through the recorded stores, for "nothing was dispatched" assertions. */
export interface WriteLog {
  sessions: SessionRecord[];
  requests: RequestRecord[];
  events: NewRequestEvent[];
}

/** Wraps stores so that session creates, request creates and appended events are logged. */
export function recordingStores(stores: FlowStores): { stores: FlowStores; writes: WriteLog } {
  const writes: WriteLog = { sessions: [], requests: [], events: [] };
  const sessions = new Proxy(stores.sessions, {
    get(target, name, receiver) {
      if (name === "create") {
        return (record: SessionRecord) => {
          writes.sessions.push(structuredClone(record));
          return target.create(record);
        };
      }
      const value = Reflect.get(target, name, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const requests = new Proxy(stores.requests, {
    get(target, name, receiver) {
      if (name === "create") {
        return async (record: RequestRecord, options?: RequestCreateOptions) => {
          const created = await target.create(record, options);
          // A request created with its own session (a delivery's ephemeral one) writes both.
          if (created && options?.session) writes.sessions.push(structuredClone(options.session));
          writes.requests.push(structuredClone(record));
          return created;
        };
      }
      if (name === "update") {
        return async (id: string, version: number, patch: RequestPatch, effects?: RequestUpdateEffects) => {
          const result = await target.update(id, version, patch, effects);
          // Events written with an update (a claim's request.started, an end's last events) are appended events too.
          if (result.ok)
            for (const event of effects?.events ?? []) writes.events.push(structuredClone(event));
          return result;
        };
      }
      if (name === "appendEvent") {
        return (event: NewRequestEvent) => {
          writes.events.push(structuredClone(event));
          return target.appendEvent(event);
        };
      }
      const value = Reflect.get(target, name, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    stores: {
      kind: stores.kind,
      crossProcess: stores.crossProcess,
      sessions,
      requests,
      scopeState: stores.scopeState,
      resources: stores.resources,
      schedules: stores.schedules,
      close: () => stores.close(),
    },
    writes,
  };
}

const ALL_STATUSES: RequestStatus[] = ["queued", "running", "completed", "failed", "aborted"];

export interface WebhookTestHost {
  host: FlowHost;
  http: HttpHandler;
  writes: WriteLog;
  /** POSTs `body` to `{basePath}{path}` through the HTTP layer. */
  post(path: string, body: string | Buffer, headers?: Record<string, string>): Promise<HttpResponse>;
  get(path: string, headers?: Record<string, string>): Promise<HttpResponse>;
  /** Every request record in the store, whatever its status. */
  allRequests(): Promise<RequestRecord[]>;
  close(): Promise<void>;
}

/** A started host over recorded memory stores (unless `stores` is given), served by `createHttpHandler`. */
export async function startWebhookHost(
  options: Omit<FlowHostOptions, "stores"> & { stores?: FlowStores },
): Promise<WebhookTestHost> {
  const recorded = recordingStores(options.stores ?? createMemoryStores());
  const host = createFlowHost({
    logger: silentLogger,
    recoveryIntervalMs: 0,
    ...options,
    stores: recorded.stores,
  });
  await host.start();
  const http = createHttpHandler(host);
  const call = (method: string, path: string, headers: Record<string, string>, body?: string | Buffer) =>
    http({
      method,
      path,
      url: `${BASE_PATH}${path}`,
      query: {},
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
      ...(body !== undefined ? { rawBody: new Uint8Array(Buffer.from(body)) } : {}),
    });
  return {
    host,
    http,
    writes: recorded.writes,
    post: (path, body, headers = {}) => call("POST", path, headers, body),
    get: (path, headers = {}) => call("GET", path, headers),
    allRequests: () => recorded.stores.requests.listByStatus(ALL_STATUSES),
    async close() {
      await host.close();
      await recorded.stores.close();
    },
  };
}

/**
 * Serves an HTTP handler on an ephemeral 127.0.0.1 port with node:http: the smallest converter that
 * hands the engine the request stream (the engine has no web framework dependency). JSON responses only.
 */
export async function serveOverSocket(
  http: HttpHandler,
  basePath = BASE_PATH,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const response = await http({
        method: req.method ?? "GET",
        path: url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) || "/" : url.pathname,
        url: req.url ?? "/",
        query: Object.fromEntries(url.searchParams),
        headers: { ...req.headers },
        // The request stream itself: the engine reads it under its body limit.
        body: req,
      });
      res.writeHead(response.status, response.headers);
      res.end(response.body === undefined ? undefined : JSON.stringify(response.body));
    })().catch(() => {
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
