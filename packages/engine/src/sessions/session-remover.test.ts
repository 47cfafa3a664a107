import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FlowStores, SessionStore } from "@flowrt/core";
import { createFsStores } from "@flowrt/store-fs";
import { afterEach, describe, expect, it } from "vitest";
import type { StoreFactory } from "../resources/testing/harness.js";
import { storeFactories } from "../testing/fixtures.js";
import { afterAbort, releaseHolds } from "./testing/lifecycle-flows.js";
import { type LifecycleServer, serveLifecycle } from "./testing/lifecycle-server.js";
import { type CensusIds, census, censusOf, tally } from "./testing/store-census.js";

/**
 * `DELETE /sessions/:id` end to end: a session with running requests, sessions beneath it and a 1,000-item
 * collection leaves no record of any of them in any store, the user's other sessions (and another user's) stay
 * exactly as they were, and a removal cut short reads as gone and is finished by a retried DELETE.
 */

let s: LifecycleServer | undefined;
afterEach(async () => {
  releaseHolds();
  await s?.close();
  s = undefined;
});

const ADA = { user: "ada" };
const asAda = { source: "test", principal: { userId: "ada" } };

/** The memory store, and the filesystem store in a directory this test can count the files of. */
let fsDir: string | undefined;
const FACTORIES: StoreFactory[] = [
  storeFactories[0]!,
  {
    name: "fs",
    async create() {
      const dir = await mkdtemp(join(tmpdir(), "flowrt-removal-"));
      fsDir = dir;
      // No fsync: what is counted is which files exist, not how durably they were written.
      const stores = createFsStores({ dir, fsync: false });
      return {
        stores,
        async destroy() {
          await stores.close();
          await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
        },
      };
    },
  },
];

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

interface Tree {
  root: string;
  beneath: string[];
  requests: string[];
  holds: string[];
}

/** Ada's conversation: 1,000 items, a finished request, two running ones, three children and a grandchild. */
async function conversation(server: LifecycleServer): Promise<Tree> {
  const root = (await server.call("POST", "/notes/sessions", { ...ADA, body: { title: "doomed" } })).body
    .session.id;
  const requests: string[] = [];
  const filled = await server.invoke("notes", "fill", "ada", { sessionId: root, input: { count: 1000 } });
  await server.until(filled.requestId, ["completed"]);
  const touched = await server.invoke("notes", "touch", "ada", { sessionId: root });
  await server.until(touched.requestId, ["completed"]);
  requests.push(filled.requestId, touched.requestId);
  const beneath: string[] = [];
  for (let i = 0; i < 3; i++) {
    const child = await server.host.createSession("notes", asAda, { parentSessionId: root });
    beneath.push(child.id);
    const run = await server.invoke("notes", "fill", "ada", { sessionId: child.id, input: { count: 2 } });
    await server.until(run.requestId, ["completed"]);
    requests.push(run.requestId);
  }
  const grandchild = await server.host.createSession("notes", asAda, { parentSessionId: beneath[0]! });
  beneath.push(grandchild.id);
  const holds: string[] = [];
  for (const sessionId of [root, root, grandchild.id]) {
    const held = await server.invoke("notes", "hold", "ada", { sessionId });
    holds.push(held.requestId);
    requests.push(held.requestId);
  }
  // Each hold has written its state (and said so) before it waits.
  for (const id of holds) {
    await server.until(id, ["running"]);
    for (let i = 0; i < 200; i++) {
      if ((await server.stores.requests.readEvents(id)).some((e) => e.type === "state_change")) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  return { root, beneath, requests, holds };
}

/** Ada's other session and Bob's, with their own data: what a removal must leave as it was. */
async function bystanders(server: LifecycleServer): Promise<CensusIds> {
  const other = (await server.call("POST", "/journal/sessions", { ...ADA, body: { title: "kept" } })).body
    .session.id;
  const a = await server.invoke("journal", "fill", "ada", { sessionId: other, input: { count: 5 } });
  const bobs = await server.invoke("notes", "touch", "bob");
  await server.until(a.requestId, ["completed"]);
  await server.until(bobs.requestId, ["completed"]);
  return {
    sessions: [other, bobs.sessionId],
    requests: [a.requestId, bobs.requestId],
    users: ["ada", "bob"],
  };
}

const treeIds = (tree: Tree): CensusIds => ({
  sessions: [tree.root, ...tree.beneath],
  requests: tree.requests,
});

describe.each(FACTORIES.map((factory): [string, StoreFactory] => [factory.name, factory]))(
  "DELETE /sessions/:id on the %s store",
  (_name, factory) => {
    it("removes a conversation with running requests, sessions beneath it and 1,000 items; nothing else changes", async () => {
      fsDir = undefined;
      s = await serveLifecycle({ factory });
      const tree = await conversation(s);
      const others = await bystanders(s);
      const before = tally(await censusOf(s.stores, treeIds(tree)));
      expect(before).toMatchObject({ sessions: 5, requests: 8, active: 3, resources: 1006 });
      const othersBefore = JSON.stringify(await censusOf(s.stores, others));
      const dir = fsDir;
      const filesBefore = dir ? (await filesUnder(dir)).length : 0;

      const answer = await s.call("DELETE", `/sessions/${tree.root}`, ADA);
      expect(answer.status).toBe(200);
      // Every aborted run had settled (its write after the abort tried and refused) before the records went.
      for (const id of tree.holds) {
        expect(afterAbort.get(id), id).toBe("request-aborted");
        expect(s.host.requests.isRunningHere(id)).toBe(false);
      }
      expect(answer.body.removed).toEqual({
        sessions: 5,
        requests: 8,
        // Each aborted request's log gained its `request.aborted` before it went.
        events: (before.events ?? 0) + tree.holds.length,
        states: before.scopes,
        resources: 1006,
        contents: 1006,
      });

      const after = await censusOf(s.stores, treeIds(tree));
      expect(tally(after)).toEqual({
        sessions: 0,
        requests: 0,
        events: 0,
        active: 0,
        scopes: 0,
        resources: 0,
      });
      const listed = await census(s.stores, {});
      for (const id of [tree.root, ...tree.beneath, ...tree.requests]) {
        expect(JSON.stringify(listed)).not.toContain(id);
      }
      expect(JSON.stringify(await censusOf(s.stores, others))).toBe(othersBefore);
      if (dir) {
        // The filesystem store: fewer files, and none that names anything of the conversation.
        const files = await filesUnder(dir);
        expect(files.length).toBeLessThan(filesBefore);
        for (const file of files) {
          const text = `${file}\n${await readFile(file, "utf8").catch(() => "")}`;
          for (const id of [tree.root, ...tree.beneath, ...tree.requests])
            expect(text, file).not.toContain(id);
        }
      }
      expect((await s.call("DELETE", `/sessions/${tree.root}`, ADA)).status).toBe(404);
    }, 60_000);
  },
);

/** The same stores, with `remove` failing once for the ids in `failOn` (a crash half-way through a removal). */
function failingRemovals(failOn: Set<string>): (stores: FlowStores) => FlowStores {
  return (stores) => {
    const sessions = new Proxy(stores.sessions, {
      get(target, name, receiver) {
        if (name === "remove") {
          return async (id: string) => {
            if (failOn.delete(id)) throw new Error(`the store failed removing ${id}`);
            return target.remove(id);
          };
        }
        const value = Reflect.get(target, name, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as SessionStore;
    return { ...stores, sessions, close: () => stores.close() } as FlowStores;
  };
}

describe("a removal cut short", () => {
  it("reads as gone (never alive with parts missing), and the owner's retried DELETE finishes it", async () => {
    const failOn = new Set<string>();
    s = await serveLifecycle({ wrap: failingRemovals(failOn) });
    const tree = await conversation(s);
    const [first, second, third] = tree.beneath as [string, string, string];
    // beneath: three children (the first with the grandchild beneath it), then the grandchild.
    failOn.add(second);
    const thirdBefore = JSON.stringify(await censusOf(s.stores, { sessions: [third] }));

    const failed = await s.call("DELETE", `/sessions/${tree.root}`, ADA);
    expect(failed.status).toBe(500);
    // The root and the child whose removal failed read as not found; the first child (and its child) are gone;
    // the third, not reached, is whole and alive.
    for (const id of [tree.root, second]) {
      expect((await s.call("GET", `/sessions/${id}`, ADA)).status, id).toBe(404);
      expect((await s.stores.sessions.get(id))?.deleting).toBe(true);
    }
    expect(await s.stores.sessions.get(first)).toBeNull();
    expect(await s.stores.sessions.get(tree.beneath[3]!)).toBeNull();
    expect((await s.call("GET", `/sessions/${third}`, ADA)).status).toBe(200);
    expect(JSON.stringify(await censusOf(s.stores, { sessions: [third] }))).toBe(thirdBefore);
    const listed = (await s.call("GET", "/sessions", ADA)).body.sessions.map((x: { id: string }) => x.id);
    expect(listed).not.toContain(tree.root);
    expect(listed).not.toContain(second);

    const finished = await s.call("DELETE", `/sessions/${tree.root}`, ADA);
    expect(finished.status).toBe(200);
    expect(finished.body.removed.sessions).toBe(3);
    expect(tally(await censusOf(s.stores, treeIds(tree)))).toEqual({
      sessions: 0,
      requests: 0,
      events: 0,
      active: 0,
      scopes: 0,
      resources: 0,
    });
  }, 60_000);

  it("a store failing before anything was removed leaves the session marked; a retried DELETE removes it all", async () => {
    let failListing = true;
    s = await serveLifecycle({
      wrap: (stores) => {
        const requests = new Proxy(stores.requests, {
          get(target, name, receiver) {
            if (name === "listBySession") {
              return async (...args: Parameters<typeof target.listBySession>) => {
                if (failListing) {
                  failListing = false;
                  throw new Error("the store is down");
                }
                return target.listBySession(...args);
              };
            }
            const value = Reflect.get(target, name, receiver);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
        return { ...stores, requests, close: () => stores.close() } as FlowStores;
      },
    });
    const tree = await conversation(s);
    const before = tally(await censusOf(s.stores, treeIds(tree)));
    expect((await s.call("DELETE", `/sessions/${tree.root}`, ADA)).status).toBe(500);
    expect((await s.call("GET", `/sessions/${tree.root}`, ADA)).status).toBe(404);
    // Nothing is missing yet: it is all there, behind the mark.
    expect(tally(await censusOf(s.stores, treeIds(tree)))).toMatchObject({
      sessions: before.sessions,
      requests: before.requests,
      resources: before.resources,
    });
    const finished = await s.call("DELETE", `/sessions/${tree.root}`, ADA);
    expect(finished.status).toBe(200);
    expect(finished.body.removed).toMatchObject({ sessions: 5, requests: 8, resources: 1006 });
    expect(tally(await censusOf(s.stores, treeIds(tree))).sessions).toBe(0);
  }, 60_000);
});
