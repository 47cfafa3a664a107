import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS, runMigrations } from "./migrations.js";
import { buildSql, tableNames } from "./sql.js";
import {
  adminQuery,
  backend,
  closeSharedPglite,
  storesOn,
  testDriver,
  uniqueSchema,
} from "./testing/databases.js";

afterAll(() => closeSharedPglite());

describe(`migrations (${backend})`, () => {
  it("setup applies every migration once, in order, and a second run applies nothing", async () => {
    const schema = uniqueSchema();
    const driver = await testDriver();
    const names = tableNames(schema);
    const sql = buildSql(names);
    try {
      expect(await runMigrations(driver, sql, names, schema)).toEqual(MIGRATIONS.map((m) => m.id));
      expect(await runMigrations(driver, sql, names, schema)).toEqual([]);
      const { rows } = await driver.query<{ id: number; name: string }>(
        `SELECT id, name FROM ${names.migrations} ORDER BY id`,
      );
      expect(rows.map((row) => [Number(row.id), row.name])).toEqual(MIGRATIONS.map((m) => [m.id, m.name]));
    } finally {
      await driver.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await driver.close();
    }
  });

  it("a failing migration rolls back entirely and records nothing", async () => {
    const schema = uniqueSchema();
    const driver = await testDriver();
    const names = tableNames(schema);
    const sql = buildSql(names);
    const broken = [
      ...MIGRATIONS,
      {
        id: 99,
        name: "broken",
        statements: () => [`CREATE TABLE ${names.schema}."half_done" (x int)`, "SELECT no_such_function()"],
      },
    ];
    try {
      await runMigrations(driver, sql, names, schema);
      await expect(runMigrations(driver, sql, names, schema, broken)).rejects.toThrow(/no_such_function/);
      const { rows } = await driver.query("SELECT to_regclass($1)::text AS half", [`"${schema}".half_done`]);
      expect(rows[0]?.half).toBeNull();
      expect((await driver.query(`SELECT id FROM ${names.migrations} WHERE id = 99`)).rows).toEqual([]);
    } finally {
      await driver.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await driver.close();
    }
  });

  it("several hosts calling setup at once all succeed and apply each migration once", async () => {
    const schema = uniqueSchema();
    const hosts = await Promise.all([storesOn(schema), storesOn(schema), storesOn(schema)]);
    try {
      await Promise.all(hosts.map((stores) => stores.setup()));
      await Promise.all(hosts.map((stores) => stores.setup()));
      const names = tableNames(schema);
      expect(await adminQuery(`SELECT id FROM ${names.migrations} ORDER BY id`)).toEqual(
        MIGRATIONS.map((m) => ({ id: m.id })),
      );
      for (const stores of hosts) expect(await stores.sessions.get("none")).toBeNull();
    } finally {
      await Promise.all(hosts.map((stores) => stores.close()));
      await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });

  it("the leaf-listing migration indexes the keys written before it", async () => {
    const schema = uniqueSchema();
    const driver = await testDriver();
    const names = tableNames(schema);
    const sql = buildSql(names);
    const stores = await storesOn(schema);
    const address = { scope: "session", scopeId: "s", bucket: "shared" } as const;
    try {
      expect(
        await runMigrations(
          driver,
          sql,
          names,
          schema,
          MIGRATIONS.filter((m) => m.id < 3),
        ),
      ).toEqual([1, 2]);
      for (const key of ["items/a", "items/a/b", "items/b", "items/b/c/d", "other/x"])
        await stores.resources.putState(address, key, {}, { type: "absent" });
      await stores.setup();
      const page = await stores.resources.list(address, { prefix: "items/", leaf: true });
      expect(page.items.map((item) => item.key)).toEqual(["items/a", "items/b"]);
      expect(page.total).toBe(2);
      expect(await stores.resources.count(address, "items/b/c/", { leaf: true })).toBe(1);
      const depths = await driver.query<{ depth: number }>(
        `SELECT ${names.keyDepthFunction}(key) AS depth FROM ${names.resources} ORDER BY key`,
      );
      expect(depths.rows.map((row) => Number(row.depth))).toEqual([1, 2, 1, 3, 1]);
    } finally {
      await stores.close();
      await driver.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await driver.close();
    }
  });

  it("the leaf-counter migration counts the keys written before it, and writes keep the counts after it", async () => {
    const schema = uniqueSchema();
    const driver = await testDriver();
    const names = tableNames(schema);
    const sql = buildSql(names);
    const stores = await storesOn(schema);
    const address = { scope: "session", scopeId: "s", bucket: "shared" } as const;
    const other = { scope: "user", scopeId: "u", bucket: "shared" } as const;
    try {
      await runMigrations(
        driver,
        sql,
        names,
        schema,
        MIGRATIONS.filter((m) => m.id < 7),
      );
      for (const key of [
        "top",
        "items/",
        "items/a",
        "items/a/b",
        "items/b",
        "items/b/c/d",
        "other/x",
        "gone/x",
      ])
        await stores.resources.putState(address, key, {}, { type: "absent" });
      await stores.resources.deleteState(address, "gone/x", { type: "any" });
      await stores.resources.putState(other, "items/z", {}, { type: "absent" });
      // Migration 7 and the ones after it.
      expect(await runMigrations(driver, sql, names, schema)).toEqual(
        MIGRATIONS.filter((m) => m.id >= 7).map((m) => m.id),
      );
      const leaf = (prefix: string, at: typeof address | typeof other = address) =>
        stores.resources.count(at, prefix, { leaf: true });
      expect(await leaf("")).toBe(1);
      expect(await leaf("items/")).toBe(3);
      expect(await leaf("items/a/")).toBe(1);
      expect(await leaf("items/b/")).toBe(0);
      expect(await leaf("items/b/c/")).toBe(1);
      expect(await leaf("gone/")).toBe(0);
      expect(await leaf("items/", other)).toBe(1);
      await stores.resources.putState(address, "items/c", {}, { type: "absent" });
      await stores.resources.deleteState(address, "items/a", { type: "any" });
      expect(await leaf("items/")).toBe(3);
      expect((await stores.resources.list(address, { prefix: "items/", leaf: true })).total).toBe(3);
    } finally {
      await stores.close();
      await driver.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await driver.close();
    }
  });

  it("the session migration lists the sessions stored before it, newest first, none of them deleting", async () => {
    const schema = uniqueSchema();
    const driver = await testDriver();
    const names = tableNames(schema);
    const sql = buildSql(names);
    const stores = await storesOn(schema);
    try {
      await runMigrations(
        driver,
        sql,
        names,
        schema,
        MIGRATIONS.filter((m) => m.id < 6),
      );
      for (const [id, createdAt] of [
        ["s1", "2026-01-01T00:00:00.000Z"],
        ["s2", "2026-01-02T00:00:00.000Z"],
        ["s3", "2026-01-02T00:00:00.000Z"],
      ] as const)
        await driver.query(
          `INSERT INTO ${names.sessions} (id, flow_id, flow_kind, user_id, root_session_id, metadata, created_at)
            VALUES ($1, 'f', 'k', 'u', $1, '{}', $2)`,
          [id, createdAt],
        );
      await stores.setup();
      const page = await stores.sessions.list({
        userId: "u",
        after: { createdAt: "2026-01-02T00:00:00.000Z", id: "s3" },
      });
      expect(page.items.map((s) => [s.id, s.deleting])).toEqual([
        ["s2", undefined],
        ["s1", undefined],
      ]);
      expect(page.total).toBe(3);
      const indexes = await driver.query<{ indexname: string }>(
        "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename IN ('flowrt_sessions', 'flowrt_requests') ORDER BY indexname",
        [schema],
      );
      // Migration 1's session listing index and migration 4's request index were replaced.
      expect(indexes.rows.map((row) => row.indexname)).toEqual([
        "flowrt_requests_by_session",
        "flowrt_requests_completed_ms_id_idx",
        "flowrt_requests_pkey",
        "flowrt_requests_status_created_at_id_idx",
        "flowrt_sessions_listed",
        "flowrt_sessions_listed_all",
        "flowrt_sessions_parent_session_id_created_at_id_idx",
        "flowrt_sessions_pkey",
      ]);
    } finally {
      await stores.close();
      await driver.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await driver.close();
    }
  });

  it("refuses options that name no connection or several", () => {
    expect(() => storesOnOptions({})).toThrow(/exactly one of `pool`, `connectionString` or `driver`/);
    expect(() => storesOnOptions({ connectionString: "" })).toThrow(/non-empty/);
    expect(() => storesOnOptions({ connectionString: "postgres://x", schema: "" })).toThrow(/schema/);
  });
});

import { createPostgresStores } from "./stores.js";

function storesOnOptions(options: Record<string, unknown>) {
  return createPostgresStores(options as never);
}
