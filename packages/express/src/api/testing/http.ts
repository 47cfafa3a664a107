import type { Response } from "supertest";
import { expect } from "vitest";

export const API = "/api/flows";

/** Header sets for the header resolver of the lab flows. */
export const as = (userId: string, extra: Record<string, string> = {}) => ({ "x-user": userId, ...extra });

/** Text that would betray a stack trace or a source location in a response. */
const STACK_LIKE = /(\n\s+at\s|\bat\s+\S+\s+\(|\.ts:\d+|\.js:\d+|node:internal|"stack")/;

/** No response body may carry a stack trace, whatever its status. */
export function expectNoStack(res: Response): void {
  expect(res.text ?? "").not.toMatch(STACK_LIKE);
}

/**
 * The architecture's error shape: `application/problem+json` with `type`, `title`, `status` (equal to
 * the HTTP status), a catalogue `code` and a `detail` string, and nothing that looks like a stack.
 */
export function expectProblem(res: Response, status: number, code: string): Record<string, unknown> {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({
    type: "about:blank",
    title: expect.any(String),
    status,
    code,
    detail: expect.any(String),
  });
  expectNoStack(res);
  return res.body as Record<string, unknown>;
}

/** Polls until `check` returns a value other than `undefined` (at most `ms`). */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 3_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
