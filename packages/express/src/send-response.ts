import { ServerResponse } from "node:http";
import type { HttpResponse } from "@flowrt/engine";

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

/**
 * Writes `chunk`, waiting for the socket to drain when it pushes back; false once the client is gone. A
 * compression middleware in front (it gives the response a `flush`) is told to send the chunk now, so a
 * stream is not held back until it ends.
 */
export async function write(res: ServerResponse, chunk: Uint8Array | string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  const written = res.write(chunk);
  const { flush } = res as ServerResponse & { flush?: unknown };
  if (typeof flush === "function") flush.call(res);
  if (written) return true;
  await drainedOrClosed(res);
  return !res.destroyed;
}

/** The headers as an object, every `Set-Cookie` line kept apart. */
function headerObject(response: HttpResponse): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = Object.assign({}, response.headers);
  if (response.setCookie) headers["set-cookie"] = response.setCookie;
  return headers;
}

/**
 * Writes an engine response as it is: status (and reason phrase), headers, then the JSON text, or the
 * stream's frames or body chunks one at a time as the socket takes them (headers flushed at once, so a
 * client sees the stream start). A response to a client already gone is not written. A failure while
 * streaming rejects; the caller cuts the connection.
 */
export async function sendResponse(res: ServerResponse, response: HttpResponse): Promise<void> {
  if (res.destroyed) return;
  if (response.statusText !== undefined) res.statusMessage = response.statusText;
  const parts = response.stream?.frames ?? response.chunks;
  if (parts) {
    res.writeHead(response.status, headerObject(response));
    res.flushHeaders();
    for await (const part of parts) if (!(await write(res, part))) break;
    if (!res.writableEnded) res.end();
    return;
  }
  const body = response.bodyText ?? (response.body === undefined ? undefined : JSON.stringify(response.body));
  if (body === undefined) {
    res.writeHead(response.status, headerObject(response));
    res.end();
    return;
  }
  const length = String(Buffer.byteLength(body));
  if (res.writeHead === NODE_WRITE_HEAD && !response.setCookie) {
    // Node's own writeHead takes one flat list of names and values as is, with no object to walk.
    const headers: string[] = [];
    for (const name of Object.keys(response.headers))
      if (name !== "content-length") headers.push(name, response.headers[name]!);
    headers.push("content-length", length);
    res.writeHead(response.status, headers);
  } else {
    // Middleware wrapped writeHead (on-headers before 1.1, under morgan, compression and express-session): it
    // reads an array as [name, value] pairs, so it gets an object.
    const headers = headerObject(response);
    headers["content-length"] = length;
    res.writeHead(response.status, headers);
  }
  res.end(body);
}
