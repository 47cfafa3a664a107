import type { RequestStore } from "@flowrt/core";

const DAY_MS = 24 * 60 * 60 * 1000;

/** How long finished requests and their event logs are kept (and the ephemeral sessions they leave empty). */
export interface PostgresRetentionOptions {
  /** Remove finished requests whose `completedAt` is older than this. @default 604800000 (7 days) */
  maxAgeMs?: number;
  /** Keep at most this many finished requests (the newest by `completedAt`), across every host. @default unlimited */
  maxCount?: number;
  /** How often each store runs the purge in the background. @default 600000 (10 minutes) */
  intervalMs?: number;
}

/** The defaults of {@link PostgresRetentionOptions}: no count limit, a database holds what it holds. */
export const DEFAULT_POSTGRES_RETENTION: Readonly<{ maxAgeMs: number; intervalMs: number }> = Object.freeze({
  maxAgeMs: 7 * DAY_MS,
  intervalMs: 10 * 60 * 1000,
});

type Resolved = { maxAgeMs?: number; maxCount?: number; intervalMs: number };

/** The options with their defaults, checked; `false` when retention is off. */
export function resolveRetention(retention: PostgresRetentionOptions | false | undefined): Resolved | false {
  if (retention === false) return false;
  if (retention !== undefined && (typeof retention !== "object" || retention === null)) {
    throw new TypeError("createPostgresStores: `retention` must be an object or false.");
  }
  const resolved: Resolved = { ...DEFAULT_POSTGRES_RETENTION, ...retention };
  for (const name of ["maxAgeMs", "maxCount", "intervalMs"] as const) {
    const value = resolved[name];
    if (value === undefined && name !== "intervalMs") continue;
    if (!Number.isSafeInteger(value) || (value as number) < 0 || (name === "intervalMs" && value === 0)) {
      throw new TypeError(
        `createPostgresStores: retention.${name} must be a ${name === "intervalMs" ? "positive" : "non-negative"} integer (got ${String(value)}); retention: false turns retention off.`,
      );
    }
  }
  return resolved;
}

/**
 * Runs `purgeFinished` every `intervalMs` once started, one purge at a time in this store (and, through the
 * purge's advisory lock, one at a time across the hosts on the schema). A failed purge goes to `onError`
 * and is tried again at the next tick. The timer does not keep the process alive.
 */
export class RetentionTimer {
  private timer: NodeJS.Timeout | undefined;
  private purging: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly requests: RequestStore,
    private readonly retention: Resolved | false,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    const retention = this.retention;
    if (retention === false || this.timer !== undefined || this.stopped) return;
    const policy = {
      ...(retention.maxAgeMs === undefined ? {} : { maxAgeMs: retention.maxAgeMs }),
      ...(retention.maxCount === undefined ? {} : { maxCount: retention.maxCount }),
    };
    this.timer = setInterval(() => {
      this.purging = this.purging
        .then(() => this.requests.purgeFinished(policy))
        .then(
          () => {},
          (error: unknown) => this.onError(error),
        );
    }, retention.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a purge under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.purging;
  }
}
