/**
 * The routes the HTTP benchmarks load (`http.bench.ts` against bare Express, `pair.bench.ts` before against after):
 * an item read at a random seeded key, a 50-item list page at a random offset, an item create with a unique
 * topic, and the read session's snapshot (its client data, the collection's count and first items).
 */
import type autocannon from "autocannon";
import { collectionPath, itemPath, seededKey, snapshotPath } from "./http-fixture.js";
import { headers } from "./http-load.js";

/** What a route's requests are built from: a server's seeded sessions. */
export interface RouteTarget {
  readSessionId: string;
  writeSessionId: string;
  /** How many items the read session holds. */
  items: number;
}

export interface RouteSpec {
  name: string;
  requests: (server: RouteTarget) => autocannon.Request[];
}

let created = 0;
const random = (n: number) => Math.floor(Math.random() * n);

export const httpRoutes: RouteSpec[] = [
  {
    name: "GET item state",
    requests: (server) => [
      {
        method: "GET",
        headers: headers(false),
        setupRequest: (req) => ({
          ...req,
          path: itemPath(server.readSessionId, seededKey(random(server.items))),
        }),
      },
    ],
  },
  {
    name: "GET list page (50 items)",
    requests: (server) => [
      {
        method: "GET",
        headers: headers(false),
        setupRequest: (req) => ({
          ...req,
          path: `${collectionPath(server.readSessionId)}?limit=50&offset=${random(server.items - 50)}`,
        }),
      },
    ],
  },
  {
    name: "POST create item",
    requests: (server) => [
      {
        method: "POST",
        path: collectionPath(server.writeSessionId),
        headers: headers(true),
        // Unique topics (the counter is shared by both servers, so neither sees a 409), with a content body.
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ topic: `t${(created++).toString(36)}`, content: "A short note body." }),
        }),
      },
    ],
  },
  {
    name: "GET session snapshot",
    requests: (server) => [
      { method: "GET", headers: headers(false), path: snapshotPath(server.readSessionId) },
    ],
  },
];
