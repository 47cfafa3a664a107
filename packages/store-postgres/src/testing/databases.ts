/**
 * Test databases: the server at `DATABASE_URL` when set, else an in-process PGlite. Each store gets
 * its own schema, so tests and concurrent runs never see each other's rows.
 */
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { createPgDriver } from "../pg-driver.js";
import { createPgliteDriver } from "../pglite-driver.js";
import { createPostgresStores, type PostgresStores, type PostgresStoresOptions } from "../stores.js";

export const DATABASE_URL = process.env.DATABASE_URL;
export type Backend = "server" | "pglite";
export const backend: Backend = DATABASE_URL ? "server" : "pglite";
/** Every backend a test can run on here: PGlite always, the server too when `DATABASE_URL` is set. */
export const backends: Backend[] = DATABASE_URL ? ["pglite", "server"] : ["pglite"];

export function uniqueSchema(): string {
  return `flowrt_test_${randomBytes(6).toString("hex")}`;
}

let pglite: Promise<PGlite> | null = null;

/** One PGlite per test file (starting one takes about a second). */
export function sharedPglite(): Promise<PGlite> {
  pglite ??= PGlite.create();
  return pglite;
}

export async function closeSharedPglite(): Promise<void> {
  const db = pglite;
  pglite = null;
  await (await db)?.close();
}

export interface TestStores {
  stores: PostgresStores;
  schema: string;
  /** Runs SQL on the same database (a separate pool on a server). */
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  destroy(): Promise<void>;
}

/** Stores in a fresh schema, set up. `schema` reuses one (a second "host" on the same data). */
export function createTestStores(
  options: { schema?: string; onError?: PostgresStoresOptions["onError"] } = {},
): Promise<TestStores> {
  return createTestStoresOn(backend, options);
}

/** {@link createTestStores} on a given backend (`server` needs `DATABASE_URL`). */
export async function createTestStoresOn(
  on: Backend,
  options: { schema?: string; onError?: PostgresStoresOptions["onError"] } = {},
): Promise<TestStores> {
  const schema = options.schema ?? uniqueSchema();
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  if (on === "server") {
    if (!DATABASE_URL) throw new Error("The server backend needs DATABASE_URL.");
    const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const stores = createPostgresStores({ connectionString: DATABASE_URL, schema, onError });
    await stores.setup();
    return {
      stores,
      schema,
      query: async (text, params) => (await admin.query(text, params)).rows,
      async destroy() {
        await stores.close();
        if (!options.schema) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      },
    };
  }
  const db = await sharedPglite();
  const stores = createPostgresStores({ driver: createPgliteDriver(db), schema, onError });
  await stores.setup();
  return {
    stores,
    schema,
    query: async (text, params) => (await db.query<never>(text, params)).rows,
    async destroy() {
      await stores.close();
      if (!options.schema) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

/** Runs one statement on the test database outside any store. */
export async function adminQuery<R = Record<string, unknown>>(
  text: string,
  params?: unknown[],
): Promise<R[]> {
  if (DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    try {
      return (await pool.query(text, params)).rows as R[];
    } finally {
      await pool.end();
    }
  }
  return (await (await sharedPglite()).query<R>(text, params)).rows;
}

/** A driver on the test database that `close()` releases (a pool it owns, or nothing for the shared PGlite). */
export async function testDriver() {
  return DATABASE_URL
    ? createPgDriver(new pg.Pool({ connectionString: DATABASE_URL, max: 4 }), { ownsPool: true })
    : createPgliteDriver(await sharedPglite());
}

/** Stores on the test database with the given schema, not yet set up. */
export async function storesOn(schema: string): Promise<PostgresStores> {
  return DATABASE_URL
    ? createPostgresStores({ connectionString: DATABASE_URL, schema })
    : createPostgresStores({ driver: createPgliteDriver(await sharedPglite()), schema });
}
