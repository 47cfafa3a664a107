import { createRequire } from "node:module";
import { join } from "node:path";

/**
 * Creates the databases `names` on the server DATABASE_URL names (dropped first if a run left them), so that
 * the Postgres examples never touch the tables of the tests; answers their URLs (all `undefined` without
 * DATABASE_URL) and a `drop()` for the end. Uses the workspace's own `pg` (store-postgres's dependency).
 *
 * @param {string} repoDir
 * @param {string[]} names
 * @returns {Promise<{ urls: Array<string | undefined>, drop: () => Promise<void> }>}
 */
export async function createDatabases(repoDir, names) {
  if (!process.env.DATABASE_URL) return { urls: names.map(() => undefined), drop: async () => {} };
  const pg = createRequire(join(repoDir, "packages", "store-postgres", "package.json"))("pg");
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const run = async (sql) => {
    await admin.query(sql);
  };
  for (const name of names) {
    await run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await run(`CREATE DATABASE ${name}`);
  }
  const urls = names.map((name) => {
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    return url.toString();
  });
  return {
    urls,
    drop: async () => {
      for (const name of names) await run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end();
    },
  };
}
