export type {
  NotificationHandler,
  PostgresDriver,
  PostgresListener,
  Queryable,
  QueryResultLike,
} from "./driver.js";
export { MIGRATIONS, type Migration } from "./migrations.js";
export { createPgliteDriver, type PgliteLike } from "./pglite-driver.js";
export { DEFAULT_POSTGRES_RETENTION, type PostgresRetentionOptions } from "./retention.js";
export { createPostgresStores, type PostgresStores, type PostgresStoresOptions } from "./stores.js";
