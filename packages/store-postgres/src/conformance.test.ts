import { describeStoreConformance } from "@flowrt/store-conformance";
import pg from "pg";
import { afterAll } from "vitest";
import { createPgliteDriver } from "./pglite-driver.js";
import { createPostgresStores } from "./stores.js";
import { closeSharedPglite, DATABASE_URL, sharedPglite, uniqueSchema } from "./testing/databases.js";

// Every case gets fresh stores on one schema per run: the suite never assumes an empty store, and
// sharing the schema is how several hosts use one database.
const schema = uniqueSchema();
const onError = (error: unknown) => console.error(error);

let pgliteReady: Promise<void> | null = null;
describeStoreConformance({
  name: "postgres on PGlite",
  async create() {
    const stores = createPostgresStores({
      driver: createPgliteDriver(await sharedPglite()),
      schema,
      onError,
    });
    pgliteReady ??= stores.setup();
    await pgliteReady;
    return stores;
  },
  // A second store over the same database: its own key-write queue, so only the database keeps the rules.
  peer: async () =>
    createPostgresStores({ driver: createPgliteDriver(await sharedPglite()), schema, onError }),
});

if (DATABASE_URL) {
  const url = DATABASE_URL;
  let serverReady: Promise<void> | null = null;
  describeStoreConformance({
    name: "postgres server (DATABASE_URL)",
    async create() {
      const stores = createPostgresStores({ connectionString: url, schema, onError });
      serverReady ??= stores.setup();
      await serverReady;
      return stores;
    },
    // Another pool on the same schema: what a second host opens.
    peer: () => createPostgresStores({ connectionString: url, schema, onError }),
  });
}

afterAll(async () => {
  const db = await sharedPglite();
  await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await closeSharedPglite();
  if (DATABASE_URL) {
    const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
});
