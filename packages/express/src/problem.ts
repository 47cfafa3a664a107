import type { ServerResponse } from "node:http";

const TITLES: Record<number, string> = {
  400: "Bad Request",
  413: "Content Too Large",
  500: "Internal Server Error",
};

/**
 * Answers with `application/problem+json` for the few failures the adapter detects itself (before the
 * engine sees the request). The body has the engine's shape; nothing from an exception (message,
 * stack) is copied into it.
 */
export function problem(
  res: ServerResponse,
  status: number,
  code: string,
  detail: string,
  extensions: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({
    type: "about:blank",
    title: TITLES[status] ?? "Error",
    status,
    code,
    detail,
    ...extensions,
  });
  res.writeHead(status, {
    ...headers,
    "content-type": "application/problem+json",
    "content-length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}
