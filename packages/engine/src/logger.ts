import { hostname } from "node:os";

/**
 * One level's method, in pino's call shape: `log(obj, msg)` (the fields first, then the message) or `log(msg)`.
 * An `Error` as the object is logged as `{ err }`, as pino does.
 */
export interface LogFn {
  (obj: object, msg?: string): void;
  (msg: string): void;
}

/**
 * The host's logger, in pino's call shape: a pino instance (`pino()`, `fastify.log`, `req.log`) is one as it is.
 * Every line of the host goes through `debug` … `error`; `child(bindings)` makes the logger of one HTTP request
 * or one run, whose lines all carry the bindings. `trace` and `fatal` are optional (the host does not write them).
 *
 * The engine before 0.x took `(message, data)`; a logger written for that shape must swap its arguments.
 */
export interface HostLogger {
  trace?: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  fatal?: LogFn;
  child(bindings: Record<string, unknown>): HostLogger;
}

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";

/** pino's numbers for its levels (`level` on every JSON line). */
export const LOG_LEVELS: Readonly<Record<Exclude<LogLevel, "silent">, number>> = Object.freeze({
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
});

const LEVEL_NAMES = ["trace", "debug", "info", "warn", "error", "fatal"] as const;

function isLogLevel(value: unknown): value is LogLevel {
  return value === "silent" || (typeof value === "string" && Object.hasOwn(LOG_LEVELS, value));
}

export interface LoggerOptions {
  /** The lowest level written. @default `FLOWRT_LOG_LEVEL`, else "info" */
  level?: LogLevel;
  /** Where the JSON lines go. @default process.stderr */
  destination?: { write(line: string): unknown };
  /** Fields on every line (pino's `base`). @default { pid, hostname } */
  base?: Record<string, unknown>;
}

/**
 * An error as pino's standard serializer writes it: `type`, `message`, `stack`, a flowrt error's `code`, and its
 * `cause` the same way. Anything else that is not an `Error` is written as it is.
 */
export function serializeError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return error;
  const out: Record<string, unknown> = { type: error.name, message: error.message, stack: error.stack };
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" || typeof code === "number") out.code = code;
  if (error.cause !== undefined && depth < 4) out.cause = serializeError(error.cause, depth + 1);
  return out;
}

/** A line's fields: `err` (and a bare `Error` as the object) serialized, the rest as given. */
function fieldsOf(obj: object): Record<string, unknown> {
  if (obj instanceof Error) return { err: serializeError(obj) };
  const fields = obj as Record<string, unknown>;
  if (fields.err instanceof Error) return { ...fields, err: serializeError(fields.err) };
  return fields;
}

/** The JSON text of one line; a field JSON cannot hold (a BigInt, a cycle) is replaced, never thrown. */
function lineText(line: Record<string, unknown>): string {
  try {
    return JSON.stringify(line);
  } catch {
    const seen = new WeakSet<object>();
    return JSON.stringify(line, (_key, value: unknown) => {
      if (typeof value === "bigint") return value.toString();
      if (typeof value === "object" && value !== null) {
        if (seen.has(value)) return "[Circular]";
        seen.add(value);
      }
      return value;
    });
  }
}

/** The level a host logger writes from when none is given: `FLOWRT_LOG_LEVEL`, else info. */
export function defaultLogLevel(): LogLevel {
  const fromEnv = process.env.FLOWRT_LOG_LEVEL?.trim().toLowerCase();
  return isLogLevel(fromEnv) ? fromEnv : "info";
}

const noop = (): void => {};

class JsonLogger implements HostLogger {
  readonly trace: LogFn;
  readonly debug: LogFn;
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
  readonly fatal: LogFn;
  readonly #threshold: number;
  readonly #bindings: Record<string, unknown>;
  readonly #destination: { write(line: string): unknown };
  readonly #level: LogLevel;

  constructor(
    level: LogLevel,
    bindings: Record<string, unknown>,
    destination: { write(line: string): unknown },
  ) {
    this.#level = level;
    this.#threshold = level === "silent" ? Number.POSITIVE_INFINITY : LOG_LEVELS[level];
    this.#bindings = bindings;
    this.#destination = destination;
    // A level below the threshold is a no-op: nothing is built for a line that is not written.
    const at = (name: (typeof LEVEL_NAMES)[number]): LogFn =>
      LOG_LEVELS[name] < this.#threshold ? noop : this.#writer(LOG_LEVELS[name]);
    this.trace = at("trace");
    this.debug = at("debug");
    this.info = at("info");
    this.warn = at("warn");
    this.error = at("error");
    this.fatal = at("fatal");
  }

  #writer(level: number): LogFn {
    return ((obj: object | string, msg?: string) => {
      const line: Record<string, unknown> = { level, time: Date.now(), ...this.#bindings };
      if (typeof obj === "string") line.msg = obj;
      else {
        Object.assign(line, fieldsOf(obj));
        if (msg !== undefined) line.msg = msg;
      }
      this.#destination.write(`${lineText(line)}\n`);
    }) as LogFn;
  }

  child(bindings: Record<string, unknown>): HostLogger {
    return new JsonLogger(this.#level, { ...this.#bindings, ...bindings }, this.#destination);
  }
}

/**
 * The host's own logger: one JSON line per call, with pino's fields (`level` as pino's number, `time` in ms since
 * the epoch, `pid`, `hostname`, the bindings, the call's fields, `msg`; `err` serialized with its `type`,
 * `message` and `stack`), so the tools that read pino's output read it too.
 *
 * @example createLogger({ level: "debug" }).child({ component: "worker" }).info({ n: 3 }, "indexed")
 */
export function createLogger(options: LoggerOptions = {}): HostLogger {
  const level = options.level ?? defaultLogLevel();
  if (!isLogLevel(level)) throw new TypeError(`Unknown log level "${String(level)}".`);
  const base = options.base ?? { pid: process.pid, hostname: hostname() };
  return new JsonLogger(level, base, options.destination ?? process.stderr);
}

/** JSON lines on stderr from `info` up (or from `FLOWRT_LOG_LEVEL` when set as the process starts). */
export const defaultLogger: HostLogger = createLogger();

const silent: HostLogger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  fatal: noop,
  child: () => silent,
};

/** Writes nothing (`createFlowHost({ logger: false })`). */
export const silentLogger: HostLogger = silent;

/** An error in one short line, `Name: message`, for a line that must not carry a stack. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * The logger a host uses for its `logger` and `logLevel` options: `false` is silent, a logger is used as it is
 * (its own level applies), none is the JSON logger at `logLevel` (else `FLOWRT_LOG_LEVEL`, else info).
 */
export function hostLogger(logger: HostLogger | false | undefined, level: LogLevel | undefined): HostLogger {
  if (logger === false) return silentLogger;
  if (logger !== undefined) {
    if (typeof logger.child !== "function" || typeof logger.info !== "function")
      throw new TypeError(
        "createFlowHost: `logger` needs pino's methods (debug, info, warn, error and child), called as " +
          "logger.info(fields, message); a logger written for the old (message, data) shape must be adapted.",
      );
    return logger;
  }
  return createLogger(level === undefined ? {} : { level });
}
