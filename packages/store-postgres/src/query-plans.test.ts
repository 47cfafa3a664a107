/**
 * Page and count queries are served by indexes: a 50-item page walks the live-key index from the
 * prefix's start, a count under a counted prefix reads one counter row, and no plan scans the
 * resources table sequentially (which would read every value in it). Checked with EXPLAIN on a
 * table of a few thousand rows, never by timing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeKey, prefixRange } from "./key-codec.js";
import { buildSql, tableNames } from "./sql.js";
import { backend, closeSharedPglite, createTestStores, type TestStores } from "./testing/databases.js";

type PlanNode = {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Actual Rows"?: number;
  Plans?: PlanNode[];
};

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe(`query plans (${backend})`, () => {
  let db: TestStores;
  let sql: ReturnType<typeof buildSql>;
  const scope = ["session", "big", "shared"];

  beforeAll(async () => {
    db = await createTestStores();
    const names = tableNames(db.schema);
    sql = buildSql(names);
    const names4k = Array.from({ length: 4000 }, (_, i) => `items/${String(i).padStart(5, "0")}`);
    const keys = names4k.map(encodeKey);
    // Deeper keys between the items in key order, which a leaf page and count must skip.
    const deeper = names4k.map((name) => encodeKey(`${name}/part`));
    const insert = `INSERT INTO ${names.resources} (scope, scope_id, bucket, key, state, version, deleted, created_at, accessed_at)
      SELECT $1, $2, $3, k, json_build_object('body', repeat('x', 200)), 1, $4, 0, 0 FROM unnest($5::bytea[]) AS k`;
    await db.query(insert, [...scope, false, keys]);
    await db.query(insert, [...scope, true, keys.map((k) => Buffer.concat([encodeKey("gone/"), k]))]);
    await db.query(insert, ["session", "other", "shared", false, keys]);
    await db.query(insert, [...scope, false, deeper]);
    await db.query(`ANALYZE ${names.resources}`);
    await db.query(`ANALYZE ${names.counts}`);
  });

  afterAll(async () => {
    await db?.destroy();
    await closeSharedPglite();
  });

  const explain = async (text: string, params: unknown[], analyze = false) => {
    const options = analyze ? "ANALYZE, FORMAT JSON" : "FORMAT JSON";
    const rows = await db.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (${options}) ${text}`, params);
    const raw = rows[0]?.["QUERY PLAN"];
    const parsed = (typeof raw === "string" ? JSON.parse(raw) : raw) as [{ Plan: PlanNode }];
    return nodes(parsed[0].Plan);
  };

  it("retiring ephemeral sessions finds their remaining requests through the session index", async () => {
    const names = tableNames(db.schema);
    await db.query(
      `INSERT INTO ${names.requests} (id, session_id, flow_id, flow_kind, action, user_id, status, metadata, durable, version, created_at)
        SELECT 'plan-request-' || i, 'plan-session-' || (i % 2000), 'f', 'k', 'a', 'u', 'completed', '{}', false, 1, '2026-01-01T00:00:00.000Z'
        FROM generate_series(1, 4000) AS i`,
    );
    await db.query(`ANALYZE ${names.requests}`);
    const plan = await explain(sql.requests.retireSessions, [["plan-session-1", "plan-session-2"]]);
    expect(plan.some((n) => n["Node Type"] === "Seq Scan" && n["Relation Name"] === "flowrt_requests")).toBe(
      false,
    );
    expect(plan.some((n) => n["Index Name"] === "flowrt_requests_by_session")).toBe(true);
  });

  /** The scan of `index` in an analyzed plan: how many rows it read (a scan under a LIMIT stops early). */
  const scanned = (plan: PlanNode[], index: string) => {
    const scans = plan.filter((n) => n["Index Name"] === index);
    expect(scans).toHaveLength(1);
    expect(plan.some((n) => n["Node Type"] === "Seq Scan" || n["Node Type"] === "Sort")).toBe(false);
    return scans[0]?.["Actual Rows"];
  };

  it("a keyset page of resources reads only its own rows from the index, at any depth; an offset reads every skipped one", async () => {
    const { low, high } = prefixRange("items/");
    const deep = encodeKey("items/03900");
    expect(
      scanned(
        await explain(sql.resources.pageAfterRange, [...scope, deep, 0, 50, high], true),
        "flowrt_resources_live",
      ),
    ).toBe(50);
    expect(
      scanned(
        await explain(sql.resources.pageAfterFrom, [...scope, deep, 0, 50], true),
        "flowrt_resources_live",
      ),
    ).toBe(50);
    expect(
      scanned(
        await explain(sql.resources.pageLeafAfterRange, [...scope, deep, 0, 50, 1, high], true),
        "flowrt_resources_leaf",
      ),
    ).toBe(50);
    expect(
      scanned(
        await explain(sql.resources.pageLeafAfterFrom, [...scope, deep, 0, 50, 1], true),
        "flowrt_resources_leaf",
      ),
    ).toBe(50);
    // What `after` replaces: the same page by offset walks the 3900 keys before it.
    expect(
      scanned(
        await explain(sql.resources.pageLeafRange, [...scope, low, 3901, 50, 1, high], true),
        "flowrt_resources_leaf",
      ),
    ).toBe(3951);
    const address = { scope: "session", scopeId: "big", bucket: "shared" } as const;
    const page = await db.stores.resources.list(address, {
      prefix: "items/",
      leaf: true,
      after: "items/03900",
      limit: 2,
    });
    expect(page.items.map((item) => item.key)).toEqual(["items/03901", "items/03902"]);
    expect(page.total).toBe(4000);
  });

  it("a leaf count of a folder reads its counter row, not the resources", async () => {
    const plan = await explain(sql.resources.countLeafCounter, [...scope, encodeKey("items/")]);
    expect(plan.some((n) => n["Relation Name"] === "flowrt_resource_counts")).toBe(true);
    expect(plan.some((n) => n["Relation Name"] === "flowrt_resources")).toBe(false);
  });

  describe("sessions and requests", () => {
    beforeAll(async () => {
      const names = tableNames(db.schema);
      // 4000 sessions of one user and 4000 of 100 others, on 400 distinct instants (ties by id), 40 deleting.
      await db.query(
        `INSERT INTO ${names.sessions} (id, flow_id, flow_kind, user_id, root_session_id, metadata, created_at, deleting)
          SELECT 'plan-s-' || i, 'f', 'k', CASE WHEN i <= 4000 THEN 'plan-user' ELSE 'u' || (i % 100) END, 'plan-s-' || i, '{}',
            '2026-01-01T00:00:' || lpad((i % 400)::text, 3, '0') || 'Z', i % 200 = 0
          FROM generate_series(1, 8000) AS i`,
      );
      await db.query(
        `INSERT INTO ${names.requests} (id, session_id, flow_id, flow_kind, action, user_id, status, metadata, durable, version, created_at)
          SELECT 'plan-r-' || i, CASE WHEN i <= 4000 THEN 'plan-busy' ELSE 'plan-session-' || i END, 'f', 'k', 'a', 'u', 'completed', '{}',
            false, 1, '2026-01-01T00:00:' || lpad((i % 400)::text, 3, '0') || 'Z'
          FROM generate_series(1, 8000) AS i`,
      );
      await db.query(`ANALYZE ${names.sessions}`);
      await db.query(`ANALYZE ${names.requests}`);
    });

    const position = ["2026-01-01T00:00:100Z", "plan-s-5"];

    it("a keyset page of one user's sessions reads only its rows from the listing index", async () => {
      const filter = ["plan-user", null, null];
      expect(
        scanned(
          await explain(sql.sessions.listAfter, [...filter, 0, 50, ...position], true),
          "flowrt_sessions_listed",
        ),
      ).toBe(50);
      const plan = await explain(sql.sessions.list, [...filter, 0, 50]);
      expect(plan.some((n) => n["Index Name"] === "flowrt_sessions_listed")).toBe(true);
      expect(plan.some((n) => n["Node Type"] === "Seq Scan" || n["Node Type"] === "Sort")).toBe(false);
    });

    it("a keyset page of every user's sessions reads only its rows from the cross-user index", async () => {
      expect(
        scanned(
          await explain(sql.sessions.listAfter, [null, null, null, 0, 50, ...position], true),
          "flowrt_sessions_listed_all",
        ),
      ).toBe(50);
      // The page after a stored session is the listing's next rows (deleting sessions left out of both).
      const all = (await db.stores.sessions.list({})).items;
      expect(all).toHaveLength(8000 - 40);
      const from = all.findIndex((s) => s.id === "plan-s-3");
      const page = await db.stores.sessions.list({
        after: { createdAt: all[from]?.createdAt ?? "", id: "plan-s-3" },
        limit: 3,
      });
      expect(page.items).toEqual(all.slice(from + 1, from + 4));
      expect(page.total).toBe(8000 - 40);
    });

    it("a keyset page of a session's requests reads only its rows from the session index", async () => {
      expect(
        scanned(
          await explain(
            sql.requests.listBySessionAfter,
            ["plan-busy", 50, "2026-01-01T00:00:100Z", "plan-r-5"],
            true,
          ),
          "flowrt_requests_by_session",
        ),
      ).toBe(50);
      const plan = await explain(sql.requests.listBySession, ["plan-busy", 50]);
      expect(plan.some((n) => n["Index Name"] === "flowrt_requests_by_session")).toBe(true);
      expect(plan.some((n) => n["Node Type"] === "Seq Scan" || n["Node Type"] === "Sort")).toBe(false);
    });

    it("removing a session finds its requests through the session index", async () => {
      const plan = await explain(sql.sessions.removeRequests, ["plan-session-4001"]);
      expect(plan.some((n) => n["Index Name"] === "flowrt_requests_by_session")).toBe(true);
      expect(
        plan.some((n) => n["Node Type"] === "Seq Scan" && n["Relation Name"] === "flowrt_requests"),
      ).toBe(false);
    });
  });

  it("a 50-item page under a prefix walks the live-key index", async () => {
    const { low, high } = prefixRange("items/");
    const plan = await explain(sql.resources.pageRange, [...scope, low, 100, 50, high]);
    expect(plan.some((n) => n["Index Name"] === "flowrt_resources_live")).toBe(true);
    expect(plan.some((n) => n["Node Type"] === "Seq Scan" || n["Node Type"] === "Sort")).toBe(false);
    const unbounded = await explain(sql.resources.pageFrom, [...scope, Buffer.alloc(0), 0, 50]);
    expect(unbounded.some((n) => n["Index Name"] === "flowrt_resources_live")).toBe(true);
    expect(unbounded.some((n) => n["Node Type"] === "Seq Scan" || n["Node Type"] === "Sort")).toBe(false);
  });

  it("a 50-item leaf page walks the leaf index from its start, past no deeper key and with no sort", async () => {
    const { low, high } = prefixRange("items/");
    const plan = await explain(sql.resources.pageLeafRange, [...scope, low, 100, 50, 1, high]);
    expect(plan.some((n) => n["Index Name"] === "flowrt_resources_leaf")).toBe(true);
    expect(plan.some((n) => n["Node Type"] === "Seq Scan" || n["Node Type"] === "Sort")).toBe(false);
    const unbounded = await explain(sql.resources.pageLeafFrom, [...scope, Buffer.alloc(0), 0, 50, 0]);
    expect(unbounded.some((n) => n["Index Name"] === "flowrt_resources_leaf")).toBe(true);
    expect(unbounded.some((n) => n["Node Type"] === "Seq Scan" || n["Node Type"] === "Sort")).toBe(false);
    const address = { scope: "session", scopeId: "big", bucket: "shared" } as const;
    const page = await db.stores.resources.list(address, {
      prefix: "items/",
      leaf: true,
      offset: 100,
      limit: 3,
    });
    expect(page.total).toBe(4000);
    expect(page.items.map((item) => item.key)).toEqual(["items/00100", "items/00101", "items/00102"]);
  });

  it("a leaf count walks only the leaf index range of the counted keys", async () => {
    const { low, high } = prefixRange("items/");
    const plan = await explain(sql.resources.countLeafRange, [...scope, low, 1, high]);
    expect(plan.some((n) => n["Index Name"] === "flowrt_resources_leaf")).toBe(true);
    expect(plan.some((n) => n["Node Type"] === "Seq Scan")).toBe(false);
    const address = { scope: "session", scopeId: "big", bucket: "shared" } as const;
    expect(await db.stores.resources.count(address, "items/", { leaf: true })).toBe(4000);
    expect(await db.stores.resources.count(address, "items/001", { leaf: true })).toBe(100);
    expect(await db.stores.resources.count(address, "items/00012/", { leaf: true })).toBe(1);
    expect(await db.stores.resources.count(address, "", { leaf: true })).toBe(0);
  });

  it("counting a prefix ending in / reads the counter table, not the resources", async () => {
    const plan = await explain(sql.resources.countCounter, [...scope, encodeKey("items/")]);
    expect(plan.some((n) => n["Relation Name"] === "flowrt_resource_counts")).toBe(true);
    expect(plan.some((n) => n["Relation Name"] === "flowrt_resources")).toBe(false);
    expect(
      await db.stores.resources.count({ scope: "session", scopeId: "big", bucket: "shared" }, "items/"),
    ).toBe(8000);
    expect(await db.stores.resources.count({ scope: "session", scopeId: "big", bucket: "shared" })).toBe(
      8000,
    );
  });

  it("counting any other prefix scans only the live-key index range", async () => {
    const { low, high } = prefixRange("items/001");
    const plan = await explain(sql.resources.countRange, [...scope, low, high]);
    expect(plan.some((n) => n["Index Name"] === "flowrt_resources_live")).toBe(true);
    expect(plan.some((n) => n["Node Type"] === "Seq Scan")).toBe(false);
    expect(
      await db.stores.resources.count({ scope: "session", scopeId: "big", bucket: "shared" }, "items/001"),
    ).toBe(200);
  });
});
