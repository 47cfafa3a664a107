import { FlowError } from "@flowrt/core";
import { type ConnectionTarget, describeTarget } from "./connection-target.js";
import type { PostgresDriver, Queryable } from "./driver.js";

/** A lone surrogate: with the `u` flag a well-formed pair is one code point, so only a lone half is `Cs`. */
const LONE_SURROGATE = /\p{Cs}/u;

/** What PostgreSQL text can hold as given: no lone surrogate (it would be stored changed), no U+0000 (refused). */
const wellFormed = (text: string) => !text.includes("\u0000") && !LONE_SURROGATE.test(text);

/**
 * PostgreSQL text is UTF-8: a JavaScript string holding a lone surrogate (`"alice\ud800"`) is sent as
 * U+FFFD, so two different ids would name one row and a stored value would come back changed. Such a
 * string is refused before it is sent. JSON values arrive as `JSON.stringify` text, which escapes lone
 * surrogates and is always well-formed, so the check falls on ids, keys, buckets and content.
 */
function checkParams(params: readonly unknown[] | undefined): void {
  if (params === undefined) return;
  for (const param of params) {
    if (typeof param === "string" && !wellFormed(param)) throw illFormed();
    if (Array.isArray(param)) {
      for (const item of param) if (typeof item === "string" && !wellFormed(item)) throw illFormed();
    }
  }
}

function illFormed(): FlowError {
  return new FlowError(
    "invalid-request",
    "store-postgres: a text value holds a lone surrogate or U+0000 (NUL); PostgreSQL text cannot store it as given.",
  );
}

/** Connection-level failures (SQLSTATE classes 08 and 57P, and socket errors): the database, not the call. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
]);

/** What `pg` says when a connection could not be opened in time or ended under a query (it sets no code). */
const CONNECTION_MESSAGES = [
  "timeout exceeded when trying to connect",
  "Connection terminated due to connection timeout",
  "Connection terminated unexpectedly",
];

/** What to check, by what the failure says (a socket error's code, or SQLSTATE). */
function hintFor(code: string | undefined, message: string): string {
  if (code === "ECONNREFUSED")
    return "nothing accepts connections there: check that PostgreSQL is running and listens on that host and port";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "the host name does not resolve: check the host";
  if (code === "ETIMEDOUT" || code === "EHOSTUNREACH" || message.includes("timeout"))
    return "no answer in time: check the host and port, and that no firewall drops the connection";
  if (code === "57P03") return "the server is starting up or shutting down: try again shortly";
  return "check that the database is up and that the connection string names the right host, port, database and user";
}

/**
 * A driver error as the catalogue names it: an index row over PostgreSQL's btree limit (a key of a few
 * thousand bytes, SQLSTATE 54000) is the caller's `invalid-request`; a lost or refused connection is
 * `store-error` (503, retryable), whose message names what was tried (host, port, database, user; never the password)
 * and what to check. Anything else is passed on unchanged (a refused login or a missing database keeps the
 * driver's own error, which names the user or the database).
 */
function classify(error: unknown, target: ConnectionTarget | undefined): unknown {
  if (typeof error !== "object" || error === null || error instanceof FlowError) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") {
    const message = error instanceof Error ? error.message : "";
    return CONNECTION_MESSAGES.some((m) => message.includes(m))
      ? connectionFailed(error, target, undefined, true)
      : error;
  }
  // Character not in repertoire / untranslatable: text the database cannot hold, an input to fix.
  if (code === "22021" || code === "22P05") {
    return new FlowError(
      "invalid-request",
      "store-postgres: a text value holds characters PostgreSQL text cannot store (such as U+0000).",
      { cause: error },
    );
  }
  if (code === "54000") {
    return new FlowError(
      "invalid-request",
      "store-postgres: a key (or id) is too long for PostgreSQL's index (over about 2700 bytes); use a shorter one.",
      { cause: error },
    );
  }
  if (code.startsWith("08") || code === "57P01" || code === "57P03" || CONNECTION_CODES.has(code)) {
    return connectionFailed(error, target, code, true);
  }
  return error;
}

function connectionFailed(
  cause: unknown,
  target: ConnectionTarget | undefined,
  code: string | undefined,
  retryable: boolean,
): FlowError {
  const reason =
    cause instanceof Error && cause.message !== "" ? cause.message : String(code ?? "unknown error");
  const to = target === undefined ? "the database" : describeTarget(target);
  return new FlowError(
    "store-error",
    `store-postgres: could not use the database connection to ${to}: ${reason}${code && !reason.includes(code) ? ` (${code})` : ""}; ${hintFor(code, reason)}.`,
    { cause, retryable },
  );
}

function checkedQueryable(target: Queryable, connection: ConnectionTarget | undefined): Queryable {
  return {
    async query(text, params) {
      checkParams(params);
      try {
        return await target.query(text, params);
      } catch (error) {
        throw classify(error, connection);
      }
    },
  };
}

/** What every call on closed stores gets (503, not worth retrying on them). */
export function closedError(): FlowError {
  return new FlowError("store-error", "store-postgres: these stores were closed; create new ones.", {
    retryable: false,
  });
}

/**
 * Wraps a driver so that every statement is checked ({@link checkParams}) and its errors classified; `connection`,
 * when known, is named by connection errors.
 */
export function checkedDriver(driver: PostgresDriver, connection?: ConnectionTarget): PostgresDriver {
  const checked = checkedQueryable(driver, connection);
  // After close() nothing reaches the database, whether the pool was ours (ended) or the application's
  // (still open: a closed store must not go on writing through it).
  let closed = false;
  return {
    query(text, params) {
      return closed ? Promise.reject(closedError()) : checked.query(text, params);
    },
    async transaction(fn) {
      if (closed) throw closedError();
      try {
        return await driver.transaction((tx) => fn(checkedQueryable(tx, connection)));
      } catch (error) {
        throw classify(error, connection);
      }
    },
    async listen(channel, onNotify, onLost) {
      if (closed) throw closedError();
      try {
        return await driver.listen(channel, onNotify, onLost);
      } catch (error) {
        throw classify(error, connection);
      }
    },
    close: () => {
      closed = true;
      return driver.close();
    },
  };
}
