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

type PlanNode = { "Node Type": string; "Relation Name"?: string; "Index Name"?: string; Plans?: PlanNode[] };

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

  const explain = async (text: string, params: unknown[]) => {
    const rows = await db.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) ${text}`, params);
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
