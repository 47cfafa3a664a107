import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createPgliteDriver } from "./pglite-driver.js";
import { createPostgresStores } from "./stores.js";
import { closeSharedPglite, DATABASE_URL, sharedPglite, uniqueSchema } from "./testing/databases.js";

afterAll(() => closeSharedPglite());

/** A local port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("connection errors name what was tried, never the password", () => {
  it("a wrong port: host, port, database and user, and what to check", async () => {
    const port = await freePort();
    const stores = createPostgresStores({
      connectionString: `postgres://ada:s3cret-pw@127.0.0.1:${port}/notes`,
      connectionTimeoutMs: 2_000,
    });
    try {
      const failure = await stores.setup().then(
        () => null,
        (error: unknown) => error as { code: string; message: string; retryable: boolean },
      );
      expect(failure).toMatchObject({ code: "store-error", retryable: true });
      expect(failure?.message).toContain(`127.0.0.1:${port}, database "notes", user "ada"`);
      expect(failure?.message).toContain(
        "check that PostgreSQL is running and listens on that host and port",
      );
      expect(failure?.message).toContain("ECONNREFUSED");
      expect(failure?.message).not.toContain("s3cret-pw");
      expect(failure?.message).not.toContain("try again.");
      await expect(stores.ping()).rejects.toMatchObject({ code: "store-error" });
    } finally {
      await stores.close();
    }
  });

  it.skipIf(!DATABASE_URL)(
    "a wrong password or a missing database keeps the driver's error, which names the user or the database",
    async () => {
      const url = new URL(DATABASE_URL!);
      url.password = "not-the-password-42";
      const wrongLogin = createPostgresStores({ connectionString: url.toString() });
      const missing = new URL(DATABASE_URL!);
      missing.pathname = "/flowrt_no_such_database_22";
      const noDatabase = createPostgresStores({ connectionString: missing.toString() });
      try {
        const login = await wrongLogin.ping().then(
          () => null,
          (error: unknown) => error as { message: string },
        );
        expect(login?.message).toContain(`user "${decodeURIComponent(url.username)}"`);
        expect(login?.message).not.toContain("not-the-password-42");
        await expect(noDatabase.ping()).rejects.toMatchObject({
          message: expect.stringContaining('"flowrt_no_such_database_22"'),
        });
      } finally {
        await wrongLogin.close();
        await noDatabase.close();
      }
    },
  );
});

describe("ping", () => {
  it("answers on a working database and refuses once the stores are closed", async () => {
    const stores = createPostgresStores({
      driver: createPgliteDriver(await sharedPglite()),
      schema: uniqueSchema(),
    });
    await expect(stores.ping()).resolves.toBeUndefined();
    await stores.close();
    await expect(stores.ping()).rejects.toMatchObject({ code: "store-error" });
  });

  it.skipIf(!DATABASE_URL)("answers through the pool on the server", async () => {
    const stores = createPostgresStores({ connectionString: DATABASE_URL!, schema: uniqueSchema() });
    try {
      await expect(stores.ping()).resolves.toBeUndefined();
    } finally {
      await stores.close();
    }
  });
});
