import type { ScopeAddress } from "@flowrt/core";

/** The write schedule of the crash test, shared by the writer child and the test that checks it. */
export type CrashOp =
  | { kind: "put"; key: string; value: { w: number; i: number } }
  | { kind: "delete"; key: string }
  | { kind: "content"; key: string; body: string }
  | { kind: "session"; id: string }
  | { kind: "event"; requestId: string; i: number };

/** A hostile-looking scope id on purpose: it must stay a plain name. */
export const CRASH_ADDRESS: ScopeAddress = { scope: "user", scopeId: "crash/../user", bucket: "shared" };

/** The op worker `w` performs at step `i` (the parent replays the same schedule). */
export function crashOp(w: number, i: number): CrashOp {
  const key = `w${w}/k${i % 7}`;
  switch (i % 6) {
    case 0:
    case 1:
    case 2:
      return { kind: "put", key, value: { w, i } };
    case 3:
      return { kind: "delete", key };
    case 4:
      return i % 12 === 4
        ? { kind: "content", key, body: `body ${w}/${i}` }
        : { kind: "session", id: `s-${w}-${i}` };
    default:
      return { kind: "event", requestId: `req-${w}`, i };
  }
}
