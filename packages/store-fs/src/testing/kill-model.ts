import type { ScopeAddress } from "@flowrt/core";

/** One operation of the kill-recovery test's writer. */
export type KillOp =
  | { kind: "create" | "update"; key: string; value: { round: number; w: number; i: number } }
  | { kind: "content"; key: string; body: string }
  | { kind: "delete"; key: string };

/** What a key holds, as the test models it: state, version and content together. */
export interface KeyModel {
  live: boolean;
  value: object | null;
  /** The version of the last write, tombstones included (0: never written). */
  version: number;
  content: string | null;
}

export const KILL_ADDRESS: ScopeAddress = { scope: "session", scopeId: "kill", bucket: "shared" };

/** The keys of worker `w`: few, so creates, content writes and deletes keep meeting each other. */
export function killKeys(w: number): string[] {
  return [`w${w}/a`, `w${w}/b`, `w${w}/c`];
}

export const EMPTY_KEY: KeyModel = { live: false, value: null, version: 0, content: null };

/**
 * The key after `op`, and the result the store must acknowledge it with (as the contract says: a create over a
 * live key loses, a delete takes the content row along, content survives creates and updates).
 */
export function applyOp(key: KeyModel, op: KillOp): { next: KeyModel; result: unknown } {
  switch (op.kind) {
    case "create":
      if (key.live)
        return { next: key, result: { ok: false, current: { value: key.value, version: key.version } } };
      return {
        next: { ...key, live: true, value: op.value, version: key.version + 1 },
        result: { ok: true, version: key.version + 1 },
      };
    case "update":
      return {
        next: { ...key, live: true, value: op.value, version: key.version + 1 },
        result: { ok: true, version: key.version + 1 },
      };
    case "content":
      return { next: { ...key, content: op.body }, result: null };
    case "delete":
      if (!key.live) return { next: { ...key, content: null }, result: { ok: true, version: key.version } };
      return {
        next: { live: false, value: null, version: key.version + 1, content: null },
        result: { ok: true, version: key.version + 1 },
      };
  }
}
