import { hasErrorCode } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { CAS_LOST, CasExhaustedError, casDone, isCasExhausted, retryCas } from "./cas.js";

/** A versioned cell whose conditional write yields to the event loop first, as a store's would. */
function versionedCell() {
  let value = 0;
  let version = 1;
  return {
    read: async () => ({ value, version }),
    write: async (expected: number, next: number) => {
      await new Promise((resolve) => setImmediate(resolve));
      if (expected !== version) return false;
      value = next;
      version++;
      return true;
    },
    get value() {
      return value;
    },
  };
}

describe("retryCas", () => {
  it("lands every increment of many concurrent writers on one cell (contention)", async () => {
    const cell = versionedCell();
    let steps = 0;
    const increments = Array.from({ length: 40 }, () =>
      retryCas({ what: "counter increment", windowMs: 5_000 }, async () => {
        steps++;
        const { value, version } = await cell.read();
        return (await cell.write(version, value + 1)) ? casDone(value + 1) : CAS_LOST;
      }),
    );
    const results = await Promise.all(increments);
    expect(cell.value).toBe(40);
    // Every writer saw its own increment land: the answers are 1..40, each once.
    expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(steps).toBeGreaterThan(40); // the race was really lost and retried
  });

  it("answers the first step that wins without retrying", async () => {
    let calls = 0;
    const value = await retryCas({ what: "w" }, async () => {
      calls++;
      return casDone("ok");
    });
    expect(value).toBe("ok");
    expect(calls).toBe(1);
  });

  it("is bounded: a step that always loses is tried `attempts` times, then a typed write-conflict", async () => {
    let calls = 0;
    const failure = await retryCas(
      { what: 'Resource "notes/a" patchState', attempts: 7, windowMs: 0 },
      async () => {
        calls++;
        return CAS_LOST;
      },
    ).catch((error: unknown) => error);
    expect(calls).toBe(7);
    expect(failure).toBeInstanceOf(CasExhaustedError);
    expect(isCasExhausted(failure)).toBe(true);
    expect(hasErrorCode(failure, "write-conflict")).toBe(true);
    expect((failure as CasExhaustedError).retryable).toBe(true);
    expect((failure as CasExhaustedError).attempts).toBe(7);
    expect((failure as Error).message).toBe(
      'Resource "notes/a" patchState lost its compare-and-swap race 7 times; try again.',
    );
  });

  it("keeps trying past `attempts` until its window has passed", async () => {
    let calls = 0;
    const started = Date.now();
    await expect(
      retryCas({ what: "w", attempts: 2, windowMs: 40, backoffAfter: 1_000 }, async () => {
        calls++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return CAS_LOST;
      }),
    ).rejects.toSatisfy(isCasExhausted);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect(calls).toBeGreaterThan(2);
  });

  it("ends with the step's own error when a step throws, without retrying", async () => {
    let calls = 0;
    const boom = new Error("store down");
    await expect(
      retryCas({ what: "w" }, async () => {
        calls++;
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(calls).toBe(1);
  });

  it("tells only its own failure apart from other write-conflicts", () => {
    expect(isCasExhausted(new CasExhaustedError("w", 1))).toBe(true);
    expect(isCasExhausted(new Error("write-conflict"))).toBe(false);
  });
});
