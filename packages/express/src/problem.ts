import type { ServerResponse } from "node:http";
import { FlowError } from "@flowrt/core";
import { problemFor } from "@flowrt/engine";

/**
 * Answers with `application/problem+json` for the few failures the adapter detects itself (before the
 * engine sees the request). The body comes from the engine's `problemFor`, so titles and the public
 * extensions stay in one place; nothing from an unexpected exception (message, stack) reaches it.
 */
export function problem(
  res: ServerResponse,
  code: "invalid-request" | "payload-too-large" | "internal-error",
  detail: string,
  details: Record<string, unknown> = {},
): void {
  const problemBody = problemFor(new FlowError(code, detail, { details }));
  const body = JSON.stringify(problemBody);
  res.writeHead(problemBody.status, {
    "content-type": "application/problem+json",
    "content-length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}
