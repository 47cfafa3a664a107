import type { FlowStores } from "@flowrt/core";

/** Which store `flowrt serve --store` opens. */
export type StoreSpec =
  | { kind: "memory" }
  | { kind: "fs"; dir: string }
  | { kind: "postgres"; connectionString: string; schema?: string };

export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** `postgres://ada:secret@host/db` as `postgres://ada:***@host/db`: what a message may echo of a store spec. */
function withoutPassword(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}

/**
 * Parses `memory`, `fs:<dir>` or `postgres:<url>` (the URL may also be given whole, `postgres://…`). `from` names
 * where the value came from in messages: `--store`, `FLOWRT_STORE` or `DATABASE_URL`.
 */
export function parseStoreSpec(value: string, from = "--store"): StoreSpec {
  if (value === "memory") return { kind: "memory" };
  if (value.startsWith("fs:")) {
    const dir = value.slice(3);
    if (dir === "") throw new UsageError(`${from} fs:<dir> needs a directory, e.g. "fs:.data".`);
    return { kind: "fs", dir };
  }
  if (value.startsWith("postgres:") || value.startsWith("postgresql:")) {
    const rest = value.slice(value.indexOf(":") + 1);
    // `postgres:postgres://…` and a bare `postgres://…` both name the same database.
    const connectionString = rest.startsWith("//") ? value : rest;
    if (!/^postgres(ql)?:\/\//.test(connectionString)) {
      throw new UsageError(
        `${from} postgres:<url> needs a connection URL, e.g. postgres:postgres://localhost/flowrt.`,
      );
    }
    // `?schema=<name>` picks the store's schema (several apps on one database); pg itself ignores it.
    const url = new URL(connectionString);
    const schema = url.searchParams.get("schema");
    if (schema === null) return { kind: "postgres", connectionString };
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new UsageError(
        `${from} postgres:<url>?schema=<name> needs a plain SQL identifier, got "${schema}".`,
      );
    }
    url.searchParams.delete("schema");
    return { kind: "postgres", connectionString: url.toString(), schema };
  }
  throw new UsageError(
    `Unknown ${from} "${withoutPassword(value)}": use memory, fs:<dir> or postgres:<url>.`,
  );
}

/** What the CLI needs of a store package; the real modules are loaded only when chosen. */
interface StoreModules {
  "@flowrt/store-memory": { createMemoryStores(): FlowStores };
  "@flowrt/store-fs": { createFsStores(options: { dir: string }): FlowStores };
  "@flowrt/store-postgres": {
    createPostgresStores(options: { connectionString: string; schema?: string }): FlowStores & {
      setup?(): Promise<void>;
    };
  };
}

/** True when `error` is Node failing to find the package `name` itself, not a dependency of it. */
function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // Node names the package it could not find in quotes; a store whose own dependency (e.g. `pg`) is missing
  // names that one, and must not be told as a missing store.
  return code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(`'${name}'`);
}

// The stores are optional peer dependencies: only the one asked for is loaded, and one that is not
// installed is a usage mistake with the command that fixes it, not a stack trace.
async function importStore<K extends keyof StoreModules>(name: K): Promise<StoreModules[K]> {
  try {
    return (await import(name)) as StoreModules[K];
  } catch (error) {
    if (isMissingPackage(error, name)) {
      throw new UsageError(
        `This store needs ${name}, which is not installed: npm install ${name} (beside @flowrt/cli).`,
      );
    }
    throw error;
  }
}

/** Opens the chosen stores (Postgres: `setup()` runs the migrations first). */
export async function openStores(spec: StoreSpec): Promise<FlowStores> {
  switch (spec.kind) {
    case "memory":
      return (await importStore("@flowrt/store-memory")).createMemoryStores();
    case "fs":
      return (await importStore("@flowrt/store-fs")).createFsStores({ dir: spec.dir });
    case "postgres": {
      const stores = (await importStore("@flowrt/store-postgres")).createPostgresStores({
        connectionString: spec.connectionString,
        ...(spec.schema ? { schema: spec.schema } : {}),
      });
      try {
        await stores.setup?.();
      } catch (error) {
        await stores.close().catch(() => {});
        throw error;
      }
      return stores;
    }
  }
}
