/**
 * Before anything is timed, two servers must answer the benchmarked routes with the same status and the
 * same JSON, and refuse the same requests with the same status (the owner check, a bad page), or the comparison
 * means nothing. Throws naming the first route that differs.
 */
import { isDeepStrictEqual } from "node:util";
import type { ServerChild } from "./http-child.js";
import { collectionPath, itemPath, seededKey, snapshotPath, USER_HEADER } from "./http-fixture.js";
import { headers } from "./http-load.js";

interface Probe {
  name: string;
  method: string;
  path: (server: ServerChild) => string;
  body?: unknown;
  /** Who the request says it is: the bench user unless set; `null` sends no user. */
  user?: string | null;
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
  { name: "GET session snapshot", method: "GET", path: (s) => snapshotPath(s.readSessionId) },
];

/** Refusals: only their statuses are compared (each server words its problem+json its own way). */
const refusals: Probe[] = [
  { name: "no user", method: "GET", path: (s) => itemPath(s.readSessionId, seededKey(7)), user: null },
  { name: "another user", method: "GET", path: (s) => snapshotPath(s.readSessionId), user: "someone-else" },
  { name: "no such session", method: "GET", path: () => snapshotPath("no-such-session") },
  { name: "no such item", method: "GET", path: (s) => itemPath(s.readSessionId, "items/none") },
  { name: "bad page", method: "GET", path: (s) => `${collectionPath(s.readSessionId)}?limit=x` },
  {
    name: "create without topic",
    method: "POST",
    path: (s) => collectionPath(s.writeSessionId),
    body: { content: "No topic." },
  },
];

async function answer(server: ServerChild, probe: Probe) {
  const sent = headers(probe.body !== undefined);
  if (probe.user === null) delete sent[USER_HEADER];
  else if (probe.user !== undefined) sent[USER_HEADER] = probe.user;
  const response = await fetch(`${server.url}${probe.path(server)}`, {
    method: probe.method,
    headers: sent,
    ...(probe.body !== undefined ? { body: JSON.stringify(probe.body) } : {}),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: response.status, body: text };
  }
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
 * Checks that `flowrt` and `bare` (any two servers: the first one's answers must be 2xx) answer every probe alike.
 * `baseline`: `flowrt` is a build from before the pagination fields of issue 21, compared without them.
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
  for (const probe of refusals) {
    const [a, b] = [await answer(flowrt, probe), await answer(bare, probe)];
    if (a.status < 400 || a.status !== b.status) {
      throw new Error(
        `refusal "${probe.name}": ${flowrt.label} answers ${a.status}, ${bare.label} ${b.status}:\n  ${flowrt.label} ${JSON.stringify(a.body)}\n  ${bare.label} ${JSON.stringify(b.body)}`,
      );
    }
  }
}
