import { ServerResponse } from "node:http";
import type { HttpResponse, SseStream } from "@flowrt/engine";

/** Node's own `writeHead`, to tell a response whose `writeHead` a middleware has wrapped. */
const NODE_WRITE_HEAD = ServerResponse.prototype.writeHead;

/** Resolves at the response's next `drain` or `close`, leaving no listener behind either way. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Writes `chunk` and flushes it through a compression middleware's buffer; false when the socket pushes back. */
function writeNow(res: ServerResponse, chunk: Uint8Array | string): boolean {
  const written = res.write(chunk);
  const { flush } = res as ServerResponse & { flush?: unknown };
  if (typeof flush === "function") flush.call(res);
  return written;
}

/**
 * Writes `chunk`, waiting for the socket to drain when it pushes back; false once the client is gone. A
 * compression middleware in front (it gives the response a `flush`) is told to send the chunk now, so a
 * stream is not held back until it ends.
 */
export async function write(res: ServerResponse, chunk: Uint8Array | string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (writeNow(res, chunk)) return true;
  await drainedOrClosed(res);
  return !res.destroyed;
}

/**
 * Sends the engine's event stream: its frames (events and `: ping` heartbeats, as exact text), each written
 * once the previous one is out. Leaving the loop early (client gone) returns the frames' iterator, and the
 * request's signal has already told the engine to stop.
 */
async function sendStream(res: ServerResponse, stream: SseStream): Promise<void> {
  res.flushHeaders();
  try {
    for await (const frame of stream.frames) if (!(await write(res, frame))) break;
  } finally {
    if (!res.writableEnded) res.end();
  }
}

/**
 * Writes an engine response: status and headers as given, then the JSON body or the event stream. A
 * HEAD request gets the stream's headers only (it would otherwise hold the connection for no bytes).
 */
export async function sendResponse(res: ServerResponse, response: HttpResponse, head = false): Promise<void> {
  if (response.stream) {
    res.writeHead(response.status, response.headers);
    if (head) res.end();
    else await sendStream(res, response.stream);
    return;
  }
  const body = response.bodyText ?? (response.body === undefined ? undefined : JSON.stringify(response.body));
  if (body === undefined) {
    res.writeHead(response.status, response.headers);
    res.end();
    return;
  }
  const length = String(Buffer.byteLength(body));
  if (res.writeHead === NODE_WRITE_HEAD) {
    // Node's own writeHead takes one flat list of names and values as is, with no object to walk.
    const headers: string[] = [];
    for (const name of Object.keys(response.headers))
      if (name !== "content-length") headers.push(name, response.headers[name]!);
    headers.push("content-length", length);
    res.writeHead(response.status, headers);
  } else {
    // Middleware wrapped writeHead (on-headers before 1.1, under morgan, compression and express-session): it
    // reads an array as [name, value] pairs, so it gets an object.
    const headers: Record<string, string> = Object.assign({}, response.headers);
    headers["content-length"] = length;
    res.writeHead(response.status, headers);
  }
  res.end(body);
}
