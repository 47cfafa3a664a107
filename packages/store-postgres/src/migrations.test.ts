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
