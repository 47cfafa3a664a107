/** The host's logger. Any object with these four methods (pino, console wrappers) fits. */
export interface HostLogger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/** Writes warnings and errors to stderr as one JSON line each; debug and info are dropped. */
export const defaultLogger: HostLogger = {
  debug() {},
  info() {},
  warn(message, data) {
    process.stderr.write(`${JSON.stringify({ level: "warn", message, ...data })}\n`);
  },
  error(message, data) {
    process.stderr.write(`${JSON.stringify({ level: "error", message, ...data })}\n`);
  },
};

export const silentLogger: HostLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** An error for the log: application errors keep their name and message; never a stack. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
