import { ServerResponse } from "node:http";
import type { HttpResponse } from "@flowrt/engine";

/** Node's own `writeHead`, to tell a response whose `writeHead` a middleware has wrapped. */
const NODE_WRITE_HEAD = ServerResponse.prototype.writeHead;

/**
 * Writes `chunk`, waiting for the socket to drain when it pushes back (leaving no listener behind); false once
 * the client is gone. A compression middleware in front (it gives the response a `flush`) sends it now.
 */
export async function write(res: ServerResponse, chunk: Uint8Array | string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  const written = res.write(chunk);
  const { flush } = res as ServerResponse & { flush?: unknown };
  if (typeof flush === "function") flush.call(res);
  if (written) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done).off("close", done);
      resolve();
    };
    res.on("drain", done).on("close", done);
  });
  return !res.destroyed;
}

/**
 * Headers for `writeHead`: Node's own reads one flat list as is; middleware that wraps it (on-headers < 1.1:
 * morgan, compression, express-session) reads arrays as pairs, so gets an object, as do `Set-Cookie` lines.
 */
function headersFor(
  res: ServerResponse,
  response: HttpResponse,
): string[] | Record<string, string | string[]> {
  if (res.writeHead === NODE_WRITE_HEAD && !response.setCookie) {
    const flat: string[] = [];
    for (const name of Object.keys(response.headers)) flat.push(name, response.headers[name]!);
    return flat;
  }
  const headers: Record<string, string | string[]> = Object.assign({}, response.headers);
  if (response.setCookie) headers["set-cookie"] = response.setCookie;
  return headers;
}

/**
 * Writes an engine response as it is: status (and reason phrase), headers, then its text, or its frames or
 * chunks as the socket takes them (headers flushed first, so a client sees a stream start). Nothing is
 * written to a client already gone; a stream that fails rejects, and the caller cuts the connection.
 */
export async function sendResponse(res: ServerResponse, response: HttpResponse): Promise<void> {
  if (res.destroyed) return;
  if (response.statusText !== undefined) res.statusMessage = response.statusText;
  res.writeHead(response.status, headersFor(res, response));
  const parts = response.stream?.frames ?? response.chunks;
  const text = response.bodyText ?? (response.body === undefined ? undefined : JSON.stringify(response.body));
  if (!parts) return void res.end(text);
  res.flushHeaders();
  for await (const part of parts) if (!(await write(res, part))) break;
  if (!res.writableEnded) res.end();
}
