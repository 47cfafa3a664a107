import type { BlockLogger } from "@flowrt/core";
import type { HostLogger } from "../logger.js";

/** A logger that stamps every line with the request (or client call) it belongs to. */
export function requestLogger(logger: HostLogger, fields: Record<string, unknown>): BlockLogger {
  const at =
    (level: keyof HostLogger) =>
    (message: string, data?: Record<string, unknown>): void =>
      logger[level](message, { ...fields, ...data });
  // Callable (at the info level, as a collection hook's `ctx.log(message)`) and with one method per level.
  return Object.assign(at("info"), {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  });
}
