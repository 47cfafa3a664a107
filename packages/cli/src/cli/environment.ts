import { parseStoreSpec, type StoreSpec, UsageError } from "./store-spec.js";

/**
 * The store to serve on: `--store`, else `FLOWRT_STORE` (same syntax), else `DATABASE_URL` (a `postgres://` URL,
 * the variable most platforms set for their database), else the memory store. An empty variable counts as unset.
 */
export function storeFromEnvironment(flag: string | undefined, env: NodeJS.ProcessEnv): StoreSpec {
  if (flag !== undefined) return parseStoreSpec(flag);
  if (env.FLOWRT_STORE) return parseStoreSpec(env.FLOWRT_STORE, "FLOWRT_STORE");
  if (env.DATABASE_URL) {
    if (!/^postgres(ql)?:\/\//.test(env.DATABASE_URL)) {
      // Its value is not echoed: it may hold a password.
      throw new UsageError(
        "DATABASE_URL is not a postgres:// URL: flowrt's database store is PostgreSQL. Set FLOWRT_STORE (or --store) to choose another store.",
      );
    }
    return parseStoreSpec(env.DATABASE_URL, "DATABASE_URL");
  }
  return { kind: "memory" };
}
