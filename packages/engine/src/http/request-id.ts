import { randomUUID } from "node:crypto";

/** The header a request id comes in on and is echoed back on. */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * What an incoming `x-request-id` may be to be kept: 1 to 128 characters of letters, digits and `._:-` (a UUID, a
 * ULID, an AWS or Heroku router id, a W3C trace id all fit). Anything else (too long, spaces, quotes, line breaks
 * a log line or a header would carry on) is replaced by a new id rather than refused.
 */
const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the incoming `x-request-id` when it is valid (the first one, when sent twice), else a new UUID. */
export function requestIdOf(headers: Record<string, string | string[] | undefined>): string {
  const sent = headers[REQUEST_ID_HEADER];
  const value = Array.isArray(sent) ? sent[0] : sent;
  return value !== undefined && VALID.test(value) ? value : randomUUID();
}
