import { type FlowStores, type RetentionOptions, resolveRetention } from "@flowrt/core";
import type pg from "pg";
import { checkedDriver } from "./checked-driver.js";
import { type ConnectionTarget, connectionTarget } from "./connection-target.js";
import type { PostgresDriver } from "./driver.js";
import { EventHub } from "./event-hub.js";
import { runMigrations } from "./migrations.js";
import { createOwnedPool, createPgDriver } from "./pg-driver.js";
import { createRequestStore } from "./request-store.js";
import { createResourceStore } from "./resource-store.js";
import { createScheduleStore } from "./schedule-store.js";
import { createScopeStateStore } from "./scope-state-store.js";
import { createSessionStore } from "./session-store.js";
import { buildSql, tableNames } from "./sql.js";

interface CommonOptions {
  /**
   * Schema holding the tables (`flowrt_*`). Stores on one database with different schemas are
   * fully separate, live events included. `setup()` creates it when missing.
   * @default "public"
   */
  schema?: string;
  /**
   * Called with errors that have no caller to throw to: a dropped listening connection (it is
   * reopened), a failed live read, a subscriber that threw.
   * @default logs with console.error
   */
  onError?: (error: unknown) => void;
  /**
   * Retention of finished requests, their event logs and the ephemeral sessions they leave empty, for a host given
   * none of its own: the host purges (`createFlowHost({ retention })` is the place to say it; purges from several
   * hosts take turns through an advisory lock); the store keeps it for the host and checks it here. `false`: the
   * host purges nothing unless told to.
   * @deprecated Give `retention` to `createFlowHost`.
   */
  retention?: RetentionOptions | false;
}

export type PostgresStoresOptions = CommonOptions &
  (
    | {
        /** A `pg` pool you own: the stores use it and leave it open on `close()`. */
        pool: pg.Pool;
        connectionString?: never;
        driver?: never;
      }
    | {
        /** Creates a pool the stores own and end on `close()`. */
        connectionString: string;
        /** Pool size for the owned pool. @default 10 (the `pg` default) */
        max?: number;
        /**
         * How long the owned pool waits to open a connection before the call fails with `store-error`
         * (503, retryable); `0` waits forever (the `pg` default). @default 10_000
         */
        connectionTimeoutMs?: number;
        pool?: never;
        driver?: never;
      }
    | {
        /** Any other connection, e.g. `createPgliteDriver(new PGlite())`. */
        driver: PostgresDriver;
        pool?: never;
        connectionString?: never;
      }
  );

export interface PostgresStores extends FlowStores {
  readonly kind: "postgres";
  readonly crossProcess: true;
  /**
   * Creates the schema and tables, applying missing migrations in order. Idempotent, and safe when
   * several hosts call it at once. Call it before using the stores.
   */
  setup(): Promise<void>;
  /** `SELECT 1` through the pool: answers once the database does (the host's readiness probe). */
  ping(): Promise<void>;
}

/**
 * Stores on PostgreSQL. Compare-and-swap and create-only writes hold across every host on the
 * database, and request events appended on one host reach subscribers on all of them.
 *
 * @example
 * const stores = createPostgresStores({ connectionString: process.env.DATABASE_URL });
 * await stores.setup();
 * const host = createFlowHost({ flows, stores });
 */
export function createPostgresStores(options: PostgresStoresOptions): PostgresStores {
  const schema = options.schema ?? "public";
  if (typeof schema !== "string" || schema === "")
    throw new TypeError("createPostgresStores: `schema` must be a non-empty string.");
  const onError = options.onError ?? ((error: unknown) => console.error("[@flowrt/store-postgres]", error));
  // Checked here, where the option is written; the host applies it.
  resolveRetention(options.retention, "createPostgresStores");
  const { driver: raw, target } = toDriver(options, onError);
  const driver = checkedDriver(raw, target);
  const names = tableNames(schema);
  const sql = buildSql(names);
  const hub = new EventHub(driver, sql, names.channel, onError);
  const requests = createRequestStore(driver, sql.requests, hub, names.channel);
  let closed: Promise<void> | null = null;

  return {
    kind: "postgres",
    crossProcess: true,
    sessions: createSessionStore(driver, sql.sessions),
    requests,
    scopeState: createScopeStateStore(driver, sql.scopeState),
    resources: createResourceStore(driver, sql.resources, schema),
    schedules: createScheduleStore(driver, sql.schedules),
    ...(options.retention !== undefined ? { retention: options.retention } : {}),
    async setup() {
      await runMigrations(driver, sql, names, schema);
    },
    async ping() {
      await driver.query("SELECT 1");
    },
    close() {
      closed ??= hub.close().finally(() => driver.close());
      return closed;
    },
  };
}

function toDriver(
  options: PostgresStoresOptions,
  onError: (error: unknown) => void,
): { driver: PostgresDriver; target?: ConnectionTarget } {
  const given = [options.pool, options.connectionString, options.driver].filter(
    (value) => value !== undefined,
  );
  if (given.length !== 1) {
    throw new TypeError("createPostgresStores: pass exactly one of `pool`, `connectionString` or `driver`.");
  }
  if (options.driver) return { driver: options.driver };
  if (options.pool) return withTarget(createPgDriver(options.pool, { ownsPool: false }), options.pool);
  if (typeof options.connectionString !== "string" || options.connectionString === "") {
    throw new TypeError("createPostgresStores: `connectionString` must be a non-empty string.");
  }
  const pool = createOwnedPool(options.connectionString, {
    ...("max" in options && options.max !== undefined ? { max: options.max } : {}),
    ...("connectionTimeoutMs" in options && options.connectionTimeoutMs !== undefined
      ? { connectionTimeoutMs: options.connectionTimeoutMs }
      : {}),
  });
  // An idle client's error is emitted on the pool; without a handler it would crash the process.
  pool.on("error", onError);
  return withTarget(createPgDriver(pool, { ownsPool: true }), pool);
}

function withTarget(
  driver: PostgresDriver,
  pool: pg.Pool,
): { driver: PostgresDriver; target?: ConnectionTarget } {
  const target = connectionTarget(pool);
  return target === undefined ? { driver } : { driver, target };
}
