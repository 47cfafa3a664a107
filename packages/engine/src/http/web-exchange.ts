import type { HttpResponse } from "./types.js";

/**
 * The absolute URL of a request: `origin` (`protocol://host` as the transport trusts them) then the full path
 * and query as sent. `null` when the two do not make a URL (a Host header that names no host).
 */
export function absoluteUrl(origin: string, target: string): URL | null {
  try {
    // Concatenated rather than resolved, so a path starting with `//` stays a path; absolute-form
    // request targets (`GET http://host/path`) are already URLs.
    return target.startsWith("/") ? new URL(`${origin}${target}`) : new URL(target, `${origin}/`);
  } catch {
    return null;
  }
}

/**
 * A WHATWG `Request`: every header as received (from the transport's flat `rawHeaders` list when it has one,
 * so repeated headers stay apart; HTTP/2 pseudo-headers left out), `body` when it has bytes, and `signal`.
 */
export function toWebRequest(
  method: string,
  url: URL,
  headers: Record<string, string | string[] | undefined>,
  rawHeaders: readonly string[] | undefined,
  body: Uint8Array | undefined,
  signal: AbortSignal | undefined,
): Request {
  const webHeaders = new Headers();
  if (rawHeaders) {
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!;
      if (!name.startsWith(":")) webHeaders.append(name, rawHeaders[i + 1]!);
    }
  } else {
    for (const [name, value] of Object.entries(headers)) {
      if (name.startsWith(":") || value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) webHeaders.append(name, one);
    }
  }
  return new Request(url, {
    method,
    headers: webHeaders,
    ...(signal ? { signal } : {}),
    ...(body !== undefined && body.byteLength > 0 ? { body: body as Uint8Array<ArrayBuffer> } : {}),
  });
}

/** How a value that is not a `Response` is named in the log (its type only, never its content). */
export function notAResponse(value: unknown): TypeError {
  const kind =
    value === null
      ? "null"
      : typeof value === "object"
        ? `an object (${(value as object).constructor?.name ?? "no prototype"})`
        : typeof value;
  return new TypeError(`The inbound route handler returned ${kind}, not a Response.`);
}

/**
 * A body stream's chunks as they come. When `signal` aborts (the client went away), or the consumer stops,
 * the stream is cancelled, so a source of events stops producing; a stream that fails is reported to
 * `failed`, then the error goes on to the transport, which cuts the connection.
 */
async function* chunksOf(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal | undefined,
  failed: (error: unknown) => void,
): AsyncGenerator<Uint8Array, void, undefined> {
  const cancel = () => {
    reader.cancel().catch(() => {});
  };
  signal?.addEventListener("abort", cancel, { once: true });
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        return;
      }
      yield value;
    }
  } catch (error) {
    ended = true;
    failed(error);
    throw error;
  } finally {
    signal?.removeEventListener("abort", cancel);
    if (!ended) cancel();
  }
}

/**
 * A handler's `Response` as the engine's response: status, reason phrase, every header (each `Set-Cookie`
 * kept apart), and the body as chunks. A HEAD request gets the headers only, and the body is cancelled.
 * The body's reader is taken here, so a body already read fails now, while a 500 can still be sent.
 */
export function fromWebResponse(
  response: Response,
  head: boolean,
  signal: AbortSignal | undefined,
  failed: (error: unknown) => void,
): HttpResponse {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const answer: HttpResponse = { status: response.status, headers };
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) answer.setCookie = cookies;
  if (response.statusText !== "") answer.statusText = response.statusText;
  const body = response.body;
  if (head || body === null) {
    body?.cancel().catch(() => {});
    return answer;
  }
  answer.chunks = chunksOf(body.getReader(), signal, failed);
  return answer;
}
