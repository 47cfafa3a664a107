/**
 * A claim and a fenced write racing from two hosts (two stores, each on its own pool, on one schema of a real
 * server: PGlite is one session). Whatever the interleaving, a write under the old epoch either commits before the
 * claim (the claimer sees it right after its claim) or is refused with `lease-lost` and stores nothing; it never
 * lands after the claim.
 */
import { randomUUID } from "node:crypto";
import type { Fence, FlowStores, RequestRecord, ScopeAddress } from "@flowrt/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableNames } from "./sql.js";
import { createPostgresStores, type PostgresStores } from "./stores.js";
import { DATABASE_URL, uniqueSchema } from "./testing/databases.js";

const TRIALS_PER_WRITE = 60;

/** One kind of fenced write: a setup without a fence, the write, and what of it can be seen. */
interface RacedWrite {
  name: string;
  setup(stores: FlowStores, at: ScopeAddress): Promise<void>;
  write(stores: FlowStores, at: ScopeAddress, fence: Fence): Promise<unknown>;
  /** What a reader sees of the write's target, as JSON. */
  observe(stores: FlowStores, at: ScopeAddress, fence: Fence): Promise<string>;
  /** Whether `observed` shows the write. */
  landed(observed: string): boolean;
}

const json = (value: unknown) => JSON.stringify(value ?? null);

const WRITES: RacedWrite[] = [
  {
    name: "scope state put (any)",
    setup: async () => {},
    write: (s, at, fence) => s.scopeState.put(at, { by: "stale" }, { type: "any" }, fence),
    observe: async (s, at) => json(await s.scopeState.get(at)),
    landed: (observed) => observed.includes("stale"),
  },
  {
    name: "resource putState (version)",
    setup: async (s, at) => void (await s.resources.putState(at, "k", { by: "setup" }, { type: "absent" })),
    write: (s, at, fence) =>
      s.resources.putState(at, "k", { by: "stale" }, { type: "version", version: 1 }, fence),
    observe: async (s, at) => json(await s.resources.getState(at, "k")),
    landed: (observed) => observed.includes("stale"),
  },
  {
    name: "resource capped create",
    setup: async () => {},
    write: (s, at, fence) =>
      s.resources.putState(
        at,
        "c/k",
        { by: "stale" },
        { type: "absent", cap: { prefix: "c/", max: 5 } },
        fence,
      ),
    observe: async (s, at) => json(await s.resources.getState(at, "c/k")),
    landed: (observed) => observed.includes("stale"),
  },
  {
    name: "resource deleteState (any)",
    setup: async (s, at) => {
      await s.resources.putState(at, "k", { by: "setup" }, { type: "absent" });
      await s.resources.putContent(at, "k", "body");
    },
    write: (s, at, fence) => s.resources.deleteState(at, "k", { type: "any" }, fence),
    observe: async (s, at) =>
      json([await s.resources.getState(at, "k"), await s.resources.getContent(at, "k")]),
    landed: (observed) => observed === "[null,null]",
  },
  {
    name: "putContent",
    setup: async () => {},
    write: (s, at, fence) => s.resources.putContent(at, "k", "stale", fence),
    observe: async (s, at) => json(await s.resources.getContent(at, "k")),
    landed: (observed) => observed === '"stale"',
  },
  {
    name: "deleteContent",
    setup: async (s, at) => s.resources.putContent(at, "k", "body"),
    write: (s, at, fence) => s.resources.deleteContent(at, "k", fence),
    observe: async (s, at) => json(await s.resources.getContent(at, "k")),
    landed: (observed) => observed === "null",
  },
  {
    name: "appendEvent",
    setup: async () => {},
    write: (s, _at, fence) =>
      s.requests.appendEvent({ requestId: fence.requestId, type: "tick", at: "", data: {} }, fence),
    observe: async (s, _at, fence) => json((await s.requests.readEvents(fence.requestId)).length),
    landed: (observed) => observed === "1",
  },
];

const claimedRequest = (): RequestRecord => ({
  id: `request-${randomUUID()}`,
  sessionId: "s1",
  flowId: "flow",
  flowKind: "kind",
  action: "act",
  userId: "u1",
  status: "running",
  input: null,
  metadata: {},
  durable: true,
  claim: { hostId: "A", until: Date.now() },
  epoch: 1,
  version: 2,
  createdAt: new Date().toISOString(),
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Lets the event loop turn `n` times, so the two sides leave in every order. */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe.skipIf(!DATABASE_URL)(
  "a claim racing a fenced write from another host (skipped without DATABASE_URL: needs a real PostgreSQL server)",
  () => {
    const schema = uniqueSchema();
    let a: PostgresStores;
    let b: PostgresStores;
    let admin: pg.Pool;

    beforeAll(async () => {
      admin = new pg.Pool({ connectionString: DATABASE_URL, max: 3 });
      a = createPostgresStores({ connectionString: DATABASE_URL as string, schema });
      b = createPostgresStores({ connectionString: DATABASE_URL as string, schema });
      await Promise.all([a.setup(), b.setup()]);
    });

    afterAll(async () => {
      await a?.close();
      await b?.close();
      await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin?.end();
    });

    for (const raced of WRITES) {
      it(`${raced.name} under the old epoch never lands after a claim from another pool (${TRIALS_PER_WRITE} trials)`, async () => {
        const outcomes = { landed: 0, refused: 0 };
        for (let i = 0; i < TRIALS_PER_WRITE; i++) {
          const at: ScopeAddress = { scope: "session", scopeId: randomUUID(), bucket: "shared" };
          const record = claimedRequest();
          await a.requests.create(record);
          await raced.setup(a, at);
          const fence = { requestId: record.id, epoch: 1 };
          // Host B takes the request over and looks at once; host A writes under its old claim meanwhile.
          // Most trials start both sides within 0–3 turns of the event loop: the tight races. One in ten gives the
          // write a 3 ms head start and one in ten the claim, so a capped create (a transaction of several
          // statements, a few ms) wins some races too and a one-statement write loses some.
          const lead = i % 10 === 8 ? 3 : i % 10 === 9 ? -3 : 0;
          const claim = (async () => {
            await sleep(Math.max(0, lead));
            await turns(i % 4);
            const taken = await b.requests.update(record.id, 2, {
              claim: { hostId: "B", until: Date.now() + 5_000 },
              epoch: 2,
            });
            expect(taken.ok).toBe(true);
            return raced.observe(b, at, fence);
          })();
          const write = (async () => {
            await sleep(Math.max(0, -lead));
            await turns((i >> 2) % 4);
            return raced.write(a, at, fence).then(
              () => "ok" as const,
              (error: { code?: string }) => {
                if (error?.code !== "lease-lost") throw error;
                return "lease-lost" as const;
              },
            );
          })();
          const [seenAfterClaim, outcome] = await Promise.all([claim, write]);
          const seenAtEnd = await raced.observe(b, at, fence);
          // Nothing changed after the claim committed …
          expect(seenAtEnd).toBe(seenAfterClaim);
          // … so a write that succeeded committed before it, and a refused one left no trace.
          expect(raced.landed(seenAfterClaim)).toBe(outcome === "ok");
          outcomes[outcome === "ok" ? "landed" : "refused"]++;
        }
        // Both orders happened: the two really raced.
        expect(outcomes.landed + outcomes.refused).toBe(TRIALS_PER_WRITE);
        expect(outcomes.landed).toBeGreaterThan(0);
        expect(outcomes.refused).toBeGreaterThan(0);
      });
    }

    it("the fence's FOR SHARE holds a claim's UPDATE back, which FOR KEY SHARE would not", async () => {
      const record = claimedRequest();
      await a.requests.create(record);
      const { requests } = tableNames(schema);
      const claimAgainst = async (lock: "FOR SHARE" | "FOR KEY SHARE") => {
        const holder = await admin.connect();
        const claimer = await admin.connect();
        try {
          await holder.query("BEGIN");
          await holder.query(`SELECT 1 FROM ${requests} WHERE id = $1 ${lock}`, [record.id]);
          await claimer.query("BEGIN");
          await claimer.query("SET LOCAL lock_timeout = '300ms'");
          // The claim as the store sends it: it changes claim columns, epoch and version, never the id.
          return await claimer
            .query(
              `UPDATE ${requests} SET epoch = coalesce(epoch, 0) + 1, version = version + 1 WHERE id = $1`,
              [record.id],
            )
            .then(
              () => "went through",
              (error: { code?: string }) => (error.code === "55P03" ? "waited" : Promise.reject(error)),
            );
        } finally {
          await claimer.query("ROLLBACK");
          await holder.query("ROLLBACK");
          claimer.release();
          holder.release();
        }
      };
      expect(await claimAgainst("FOR SHARE")).toBe("waited");
      expect(await claimAgainst("FOR KEY SHARE")).toBe("went through");
    });
  },
);
