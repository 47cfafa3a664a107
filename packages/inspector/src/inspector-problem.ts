import { problemFor } from "@flowrt/engine";

/** A problem+json answer for `error`: the engine's mapping (status, stable `code`), never a 5xx's own message. */
export function problemAnswer(error: unknown): Response {
  const problem = problemFor(error);
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { "content-type": "application/problem+json", "cache-control": "no-store" },
  });
}

/** A JSON answer the browser never caches (the inspector shows the store as it is now). */
export function jsonAnswer(body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}
