import type { BlockLogger } from "@flowrt/core";
import type { HostLogger } from "../logger.js";

type Level = "debug" | "info" | "warn" | "error";

/**
 * `ctx.log` over the host's logger: `(message, data?)` as the block API has it, written as pino's
 * `(data, message)` to a child bound to the request (or client call) it belongs to, made on the first line.
 */
export function requestLogger(logger: HostLogger, fields: Record<string, unknown>): BlockLogger {
  let bound: HostLogger | undefined;
  const at =
    (level: Level) =>
    (message: string, data?: Record<string, unknown>): void => {
      bound ??= logger.child(fields);
      if (data === undefined) bound[level](message);
      else bound[level](data, message);
    };
  // Callable (at the info level, as a collection hook's `ctx.log(message)`) and with one method per level.
  return Object.assign(at("info"), {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  });
}
