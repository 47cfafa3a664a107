/**
 * Before anything is timed, both servers must answer the benchmarked routes with the same status and the
 * same JSON, or the comparison means nothing. Throws naming the first route that differs.
 */
import { isDeepStrictEqual } from "node:util";
import type { ServerChild } from "./http-child.js";
import { collectionPath, itemPath, seededKey } from "./http-fixture.js";
import { headers } from "./http-load.js";

interface Probe {
  name: string;
  method: string;
  path: (server: ServerChild) => string;
  body?: unknown;
}

const probes: Probe[] = [
  { name: "GET item state", method: "GET", path: (s) => itemPath(s.readSessionId, seededKey(7)) },
  {
    name: "GET list page",
    method: "GET",
    path: (s) => `${collectionPath(s.readSessionId)}?limit=50&offset=3`,
  },
  {
    name: "POST create",
    method: "POST",
    path: (s) => collectionPath(s.writeSessionId),
    body: { topic: "parity-check", content: "Parity." },
  },
  {
    name: "PATCH content",
    method: "PATCH",
    path: (s) => `${itemPath(s.writeSessionId, "items/parity-check")}/content`,
    body: { content: "Parity, again." },
  },
  { name: "DELETE item", method: "DELETE", path: (s) => itemPath(s.writeSessionId, "items/parity-check") },
];

async function answer(server: ServerChild, probe: Probe) {
  const response = await fetch(`${server.url}${probe.path(server)}`, {
    method: probe.method,
    headers: headers(probe.body !== undefined),
    ...(probe.body !== undefined ? { body: JSON.stringify(probe.body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

/**
 * A page answer without the pagination fields added after a baseline was built (`nextCursor`, and `nextOffset` on
 * a page that has no next one), so that a baseline build is held to the answer it was written for.
 */
function withoutNewPagination(answer: { status: number; body: unknown }) {
  const body = answer.body as { pagination?: Record<string, unknown> } | null;
  if (typeof body !== "object" || body === null || body.pagination === undefined) return answer;
  const { nextCursor: _cursor, ...pagination } = body.pagination;
  if (pagination.hasMore === false) pagination.nextOffset = null;
  return { status: answer.status, body: { ...body, pagination } };
}

/**
 * Checks that `flowrt` and `bare` answer every probe alike. `baseline`: `flowrt` is a build from before the
 * pagination fields of issue 21, compared without them.
 */
export async function checkParity(flowrt: ServerChild, bare: ServerChild, baseline = false): Promise<void> {
  for (const probe of probes) {
    const [a, b] = [await answer(flowrt, probe), await answer(bare, probe)].map((x) =>
      baseline ? withoutNewPagination(x) : x,
    ) as [{ status: number; body: unknown }, { status: number; body: unknown }];
    if (a.status < 200 || a.status >= 300 || !isDeepStrictEqual(a, b)) {
      throw new Error(
        `${probe.name}: ${flowrt.label} and ${bare.label} answer differently:\n  ${flowrt.label} ${JSON.stringify(a)}\n  ${bare.label} ${JSON.stringify(b)}`,
      );
    }
  }
}
