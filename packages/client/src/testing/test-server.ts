import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the server saw it: the raw (still percent-encoded) URL, lower-case headers, body text. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type TestHandler = (request: RecordedRequest, response: ServerResponse) => unknown;

export interface TestServer {
  /** `http://127.0.0.1:<port>`. */
  baseUrl: string;
  /** Every request received so far, in arrival order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A real HTTP server on port 0 that records requests and hands each to `handler`. */
export async function startTestServer(handler: TestHandler): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  type = "application/json",
): void {
  res.writeHead(status, { "content-type": `${type}; charset=utf-8` });
  res.end(JSON.stringify(body));
}

/** An `application/problem+json` answer, as the engine's HTTP layer writes it. */
export function sendProblem(
  res: ServerResponse,
  status: number,
  code: string,
  detail: string,
  extensions: Record<string, unknown> = {},
): void {
  const titles: Record<number, string> = {
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
  };
  const body = { type: "about:blank", title: titles[status] ?? "Error", status, code, detail, ...extensions };
  res.writeHead(status, { "content-type": "application/problem+json" });
  res.end(JSON.stringify(body));
}

export interface WireEvent {
  seq: number;
  type: string;
  requestId: string;
  at: string;
  data: Record<string, unknown>;
}

/** The documented wire format (architecture §3): envelope fields first, the payload beside them. */
export function formatEvent(event: WireEvent): string {
  const envelope = {
    seq: event.seq,
    type: event.type,
    requestId: event.requestId,
    at: event.at,
    ...event.data,
  };
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(envelope)}\n\n`;
}

export function startEventStream(res: ServerResponse, extraHeaders: Record<string, string> = {}): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
    ...extraHeaders,
  });
  res.flushHeaders();
}

/** A request's event log: `count - 1` text deltas and a closing `request.completed`. */
export function eventLog(requestId: string, count: number): WireEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const seq = i + 1;
    const last = seq === count;
    return {
      seq,
      type: last ? "request.completed" : "text.delta",
      requestId,
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
      data: last ? { output: { ok: true } } : { delta: `part ${seq} ` },
    };
  });
}
