import { errorFromResponse, FlowClientError, isAbortError, networkError } from "./errors.js";

/** The part of `fetch` the client uses; pass any implementation (a test double, `undici`, a wrapped fetch). */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Plain header names and values. */
export type HeaderMap = Record<string, string>;

/** Static headers, or a function called before every request (e.g. to attach a fresh token). */
export type HeadersOption = HeaderMap | (() => HeaderMap | Promise<HeaderMap>);

/** Options a single call accepts. */
export interface CallOptions {
  /** Aborts the call; the promise then rejects with the platform's `AbortError`. */
  signal?: AbortSignal;
  /** Extra headers for this call only; they win over the client's `headers`. */
  headers?: HeaderMap;
}

export interface TransportOptions {
  baseUrl: string;
  basePath: string;
  fetch: FetchLike;
  headers: HeadersOption | undefined;
}

export type QueryValue = string | number | undefined;

/**
 * Builds a path from a template, percent-encoding every interpolated value as one segment (so a topic
 * `a/b` travels as `a%2Fb`, as the routing rules ask). An empty or non-string value is refused: it would
 * silently address another route.
 */
export function route(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = strings[0]!;
  values.forEach((value, i) => {
    if (typeof value !== "string" || value === "") {
      throw new TypeError(
        `Every id in ${strings.join(":param")} must be a non-empty string (got ${JSON.stringify(value) ?? String(value)}).`,
      );
    }
    out += encodeURIComponent(value) + strings[i + 1]!;
  });
  return out;
}

export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, "");
  if (trimmed === "") return "";
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/** Sends requests under `baseUrl + basePath` and turns failures into {@link FlowClientError}s. */
export class Transport {
  private readonly prefix: string;

  constructor(private readonly options: TransportOptions) {
    this.prefix = options.baseUrl.replace(/\/+$/, "") + normalizeBasePath(options.basePath);
  }

  url(path: string, query?: Record<string, QueryValue>): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) params.set(key, String(value));
    }
    const search = params.toString();
    return `${this.prefix}${path}${search === "" ? "" : `?${search}`}`;
  }

  private async headers(extra: HeaderMap | undefined, own: HeaderMap): Promise<Headers> {
    const configured = this.options.headers;
    const base = typeof configured === "function" ? await configured() : configured;
    const headers = new Headers(own);
    for (const source of [base, extra]) {
      for (const [name, value] of Object.entries(source ?? {})) headers.set(name, value);
    }
    return headers;
  }

  /** Sends one request and returns the response as it is, 2xx or not; a network failure throws. */
  async send(
    method: string,
    path: string,
    init: { query?: Record<string, QueryValue>; body?: unknown; accept?: string; call?: CallOptions },
  ): Promise<Response> {
    const own: HeaderMap = { accept: init.accept ?? "application/json" };
    if (init.body !== undefined) own["content-type"] = "application/json";
    const request: RequestInit = {
      method,
      headers: await this.headers(init.call?.headers, own),
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(init.call?.signal ? { signal: init.call.signal } : {}),
    };
    try {
      return await this.options.fetch(this.url(path, init.query), request);
    } catch (error) {
      if (isAbortError(error) || init.call?.signal?.aborted) throw error;
      throw networkError(error);
    }
  }

  /** Sends a request and parses a 2xx JSON answer; anything else throws a {@link FlowClientError}. */
  async json<T>(
    method: string,
    path: string,
    init: { query?: Record<string, QueryValue>; body?: unknown; call?: CallOptions } = {},
  ): Promise<T> {
    return (await this.answer<T>(method, path, init)).body;
  }

  /** {@link json}, with the answer's status beside its body (for a check of the body that may refuse it). */
  async answer<T>(
    method: string,
    path: string,
    init: { query?: Record<string, QueryValue>; body?: unknown; call?: CallOptions } = {},
  ): Promise<{ status: number; body: T }> {
    const response = await this.send(method, path, init);
    if (!response.ok) throw await errorFromResponse(response);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (isAbortError(error) || init.call?.signal?.aborted) throw error;
      throw networkError(error);
    }
    try {
      return { status: response.status, body: JSON.parse(text) as T };
    } catch {
      throw new FlowClientError({
        status: response.status,
        code: "invalid-response",
        title: "Invalid response",
        detail: `Expected a JSON body from ${method} ${path}, got ${JSON.stringify(text.slice(0, 80))}.`,
      });
    }
  }
}
