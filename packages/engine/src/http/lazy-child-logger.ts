import type { HostLogger } from "../logger.js";

/**
 * `parent.child(bindings)`, made on the first line written: a request that logs nothing (most of them) makes no
 * child. Each call is handed on with its arguments as given, so a pino parent formats them as it always does.
 */
export class LazyChildLogger implements HostLogger {
  #bound: HostLogger | undefined;
  readonly #parent: HostLogger;
  readonly #bindings: Record<string, unknown>;

  constructor(parent: HostLogger, bindings: Record<string, unknown>) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #logger(): HostLogger {
    this.#bound ??= this.#parent.child(this.#bindings);
    return this.#bound;
  }

  trace(...args: [obj: object | string, msg?: string]): void {
    this.#at("trace", args);
  }

  debug(...args: [obj: object | string, msg?: string]): void {
    this.#at("debug", args);
  }

  info(...args: [obj: object | string, msg?: string]): void {
    this.#at("info", args);
  }

  warn(...args: [obj: object | string, msg?: string]): void {
    this.#at("warn", args);
  }

  error(...args: [obj: object | string, msg?: string]): void {
    this.#at("error", args);
  }

  fatal(...args: [obj: object | string, msg?: string]): void {
    this.#at("fatal", args);
  }

  #at(
    level: "trace" | "debug" | "info" | "warn" | "error" | "fatal",
    args: [obj: object | string, msg?: string],
  ): void {
    const logger = this.#logger();
    // `trace` and `fatal` are optional on a host logger: a logger without them gets the nearest level it has.
    const method = logger[level] ?? (level === "trace" ? logger.debug : logger.error);
    (method as (...a: unknown[]) => void).apply(logger, args);
  }

  child(bindings: Record<string, unknown>): HostLogger {
    return this.#logger().child(bindings);
  }
}
