import { afterAll, describe, expect, it } from "vitest";
import { createPgliteDriver } from "./pglite-driver.js";
import { createPostgresStores } from "./stores.js";
import { closeSharedPglite, sharedPglite, uniqueSchema } from "./testing/databases.js";

afterAll(() => closeSharedPglite());

describe("closed stores", () => {
  it("refuse every call with store-error, though the database they were given is still open", async () => {
    const db = await sharedPglite();
    const schema = uniqueSchema();
    const stores = createPostgresStores({ driver: createPgliteDriver(db), schema });
    await stores.setup();
    const address = { scope: "session", scopeId: "s1", bucket: "shared" } as const;
    await stores.resources.putState(address, "notes/a", { n: 1 }, { type: "any" });
    await stores.close();

    const refused = {
      code: "store-error",
      message: "store-postgres: these stores were closed; create new ones.",
    };
    await expect(
      stores.resources.putState(address, "notes/b", { n: 2 }, { type: "any" }),
    ).rejects.toMatchObject(refused);
    await expect(stores.resources.getState(address, "notes/a")).rejects.toMatchObject(refused);
    await expect(stores.sessions.get("s1")).rejects.toMatchObject(refused);
    await expect(stores.requests.purgeFinished({ maxCount: 0 })).rejects.toMatchObject(refused);
    await expect(stores.setup()).rejects.toMatchObject(refused);
    expect(() => stores.requests.subscribe("r1", () => {})).toThrow(refused.message);
    await stores.close(); // a second close is fine

    // Nothing reached the database after close(): the application's connection still sees one row.
    const rows = await db.query(`SELECT 1 FROM "${schema}".flowrt_resources`);
    expect(rows.rows).toHaveLength(1);
    await db.query(`DROP SCHEMA "${schema}" CASCADE`);
  });
});
