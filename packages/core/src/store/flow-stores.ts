import type { ScopeStateStore, SessionStore } from "./contract.js";
import type { RequestStore, RetentionOptions } from "./request-store.js";
import type { ResourceStore } from "./resource-store.js";
import type { ScheduleStore } from "./schedule-store.js";

/** What `createMemoryStores()`, `createFsStores()` and `createPostgresStores()` return. */
export interface FlowStores {
  /** A short name for logs, e.g. `memory`, `fs`, `postgres`. */
  readonly kind: string;
  readonly sessions: SessionStore;
  readonly requests: RequestStore;
  readonly scopeState: ScopeStateStore;
  readonly resources: ResourceStore;
  /** The ticks of flows' schedules: claimed and fired once across every host on the store. */
  readonly schedules: ScheduleStore;
  /**
   * Whether compare-and-swap and create-only writes hold across processes sharing the backing
   * storage (true for Postgres; false for the filesystem store, which guards within one instance).
   */
  readonly crossProcess: boolean;
  /**
   * Prepares the backing storage (e.g. runs migrations); idempotent and safe when several hosts call it
   * at once. `host.start()` calls it when present.
   */
  setup?(): Promise<void>;
  /**
   * Answers once the backing storage answers (Postgres: `SELECT 1` through the pool; the filesystem store: its
   * folder is there and readable), or rejects. Cheap: the host's readiness probe (`GET /readyz`) calls it, under
   * a timeout of its own. A store without it is probed with a point read of a session id that cannot exist.
   */
  ping?(): Promise<void>;
  /**
   * The retention the application gave the store itself (its own `retention` option, kept for applications
   * written before the host owned retention). Stores do not purge by themselves: the host applies this when
   * `createFlowHost` is given no `retention` of its own; `false` turns purging off.
   */
  readonly retention?: RetentionOptions | false;
  /** Releases pools, timers and file handles. */
  close(): Promise<void>;
}
