import type { FlowStores } from "@flowrt/core";
import type { HostLogger } from "../logger.js";

/** How the store answered the readiness probe: in time, not in time, with an error, or not asked (see below). */
export type StoreCheck = "ok" | "timeout" | "error" | "skipped";

/** `GET /readyz`'s body: ready only when every check passes. */
export interface ReadinessReport {
  status: "ok" | "unavailable";
  checks: {
    /** The host has started (and has not finished closing). */
    started: boolean;
    /** `close()` has begun: the host takes no new work. */
    draining: boolean;
    /** The store's answer; `skipped` when the host is not started or is draining (it is unready either way). */
    store: StoreCheck;
  };
}

/** What the probe reads of the host. */
export interface ReadinessSubject {
  readonly started: boolean;
  readonly draining: boolean;
  readonly closed: boolean;
  /** Starts a host never started (a host mounted without `start()` becomes ready on its first probe). */
  ensureStarted(): Promise<void>;
  readonly stores: FlowStores;
  readonly logger: HostLogger;
}

/** The session id the fallback probe reads: no session is ever created under it (ids are generated). */
const PROBE_SESSION_ID = "flowrt-readiness-probe";

/**
 * The store's answer: its `ping()`, or for a store without one, a point read of a session that does not exist
 * (one index lookup on every store).
 */
function askStore(stores: FlowStores): Promise<unknown> {
  return stores.ping ? stores.ping() : stores.sessions.get(PROBE_SESSION_ID);
}

const TIMED_OUT = Symbol("timed out");

/** `work`'s outcome, or {@link TIMED_OUT} once `ms` have passed; a late failure of `work` is dropped. */
function within<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
    timer.unref?.();
  });
  work.catch(() => {});
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Readiness: started, not draining, and the store answers within `timeoutMs`. A host never started is started here
 * (within the same timeout), as any first request would. A failing store is logged as a warning (its message is for
 * the operator, never the probe's body).
 */
export async function checkReadiness(host: ReadinessSubject, timeoutMs: number): Promise<ReadinessReport> {
  if (!host.started && !host.draining && !host.closed) {
    try {
      await within(host.ensureStarted(), timeoutMs);
    } catch (error) {
      host.logger.warn({ err: error }, "readiness: the host could not start");
    }
  }
  const draining = host.draining || host.closed;
  const started = host.started || host.draining;
  let store: StoreCheck = "skipped";
  if (host.started) {
    try {
      store = (await within(askStore(host.stores), timeoutMs)) === TIMED_OUT ? "timeout" : "ok";
    } catch (error) {
      store = "error";
      host.logger.warn({ err: error }, "readiness: the store check failed");
    }
    if (store === "timeout") host.logger.warn({ timeoutMs }, "readiness: the store did not answer in time");
  }
  const ready = started && !draining && store === "ok";
  return { status: ready ? "ok" : "unavailable", checks: { started, draining, store } };
}
