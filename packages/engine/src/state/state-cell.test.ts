import { isFlowError, type JsonObject, type Versioned } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type CellBackend, StateCell, type StateChange } from "./state-cell.js";

/** One shared stored value, as a store would keep it; every cell over it is another "request". */
function sharedValue(initial?: JsonObject) {
  let stored: Versioned<JsonObject> | null = initial ? { value: structuredClone(initial), version: 1 } : null;
  let writes = 0;
  const backend = (): CellBackend => ({
    async read() {
      await Promise.resolve();
      return stored ? structuredClone(stored) : null;
    },
    async write(value, expectedVersion) {
      await Promise.resolve();
      const live = stored;
      const matches = expectedVersion === null ? live === null : live?.version === expectedVersion;
      if (!matches) return { ok: false, current: live ? structuredClone(live) : null };
      stored = { value: structuredClone(value), version: (live?.version ?? 0) + 1 };
      writes++;
      return { ok: true, version: stored.version };
    },
  });
  return { backend, get: () => stored, writes: () => writes };
}

const counterSchema = z.object({
  n: z.number().nullable().default(0),
  tags: z.array(z.string()).nullable().default([]),
  label: z.string().optional(),
});

async function cell(store: ReturnType<typeof sharedValue>, changes?: StateChange[], writable = true) {
  return new StateCell({
    name: "counter",
    schema: counterSchema,
    backend: store.backend(),
    writable,
    onChange: (c) => {
      changes?.push(c);
    },
  }).load();
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isFlowError(error)).toBe(true);
  return error as { code: string; message: string; retryable: boolean };
}

describe("delta rules", () => {
  it("incState starts an absent or null field from 0", async () => {
    const store = sharedValue({ n: null, tags: [] });
    const c = await cell(store);
    await c.incState({ n: 2 });
    expect(store.get()?.value.n).toBe(2);
  });

  it("pushState starts an absent or null field from an empty array", async () => {
    const store = sharedValue({ n: 0, tags: null });
    const c = await cell(store);
    await c.pushState("tags", "a");
    expect(store.get()?.value.tags).toEqual(["a"]);
  });

  it("incState on a non-number field is refused with the exact message and stores nothing", async () => {
    const store = sharedValue({ n: 0, tags: [], label: "x" });
    const changes: StateChange[] = [];
    const c = await cell(store, changes);
    const error = await refusal(c.incState({ label: 1 } as never));
    expect(error.code).toBe("resource_delta_refused");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe('Resource "counter" incState target "label" is not a number (got string)');
    expect(store.get()).toEqual({ value: { n: 0, tags: [], label: "x" }, version: 1 });
    expect(changes).toEqual([]);
  });

  it("pushState on a non-array field is refused with the exact message and stores nothing", async () => {
    const store = sharedValue({ n: 3, tags: [] });
    const changes: StateChange[] = [];
    const c = await cell(store, changes);
    const error = await refusal(c.pushState("n", 1));
    expect(error.code).toBe("resource_delta_refused");
    expect(error.message).toBe('Resource "counter" pushState target "n" is not an array (got number)');
    expect(store.get()?.version).toBe(1);
    expect(store.writes()).toBe(0);
    expect(changes).toEqual([]);
  });

  it("a multi-field incState with one wrong-typed field applies none", async () => {
    const store = sharedValue({ n: 1, tags: [], label: "x" });
    const changes: StateChange[] = [];
    const c = await cell(store, changes);
    await refusal(c.incState({ n: 5, label: 1 } as never));
    expect(store.get()?.value.n).toBe(1);
    expect(c.state.n).toBe(1);
    expect(store.writes()).toBe(0);
    expect(changes).toEqual([]);
  });

  it("incState refuses a non-finite result of two finite numbers", async () => {
    const store = sharedValue({ n: Number.MAX_VALUE, tags: [] });
    const changes: StateChange[] = [];
    const c = await cell(store, changes);
    const error = await refusal(c.incState({ n: Number.MAX_VALUE }));
    expect(error.code).toBe("resource_delta_refused");
    expect(store.get()?.value.n).toBe(Number.MAX_VALUE);
    expect(store.writes()).toBe(0);
    expect(changes).toEqual([]);
  });

  it("a delta whose result violates the schema throws and stores nothing", async () => {
    const store = sharedValue({ n: 0, tags: [] });
    const strict = new StateCell({
      name: "bounded",
      schema: z.object({ n: z.number().max(3) }),
      backend: store.backend(),
    });
    await strict.load();
    const error = await refusal(strict.incState({ n: 10 }));
    expect(error.code).toBe("resource-write-refused");
    expect(error.message).toContain('field "n"');
    expect(store.get()?.value.n).toBe(0);
    expect(store.writes()).toBe(0);
  });

  it("writable: false refuses all five state writers", async () => {
    const store = sharedValue({ n: 0, tags: [] });
    const c = await cell(store, undefined, false);
    for (const write of [
      () => c.patchState({ n: 1 }),
      () => c.setState({ n: 1 }),
      () => c.updateState((s) => s),
      () => c.incState({ n: 1 }),
      () => c.pushState("tags", "x"),
    ]) {
      expect((await refusal(write())).code).toBe("resource-write-refused");
    }
    expect(store.writes()).toBe(0);
  });

  it("field names such as constructor and __proto__ are ordinary data", async () => {
    const store = sharedValue();
    const c = new StateCell({
      name: "free",
      schema: z.record(z.string(), z.unknown()),
      backend: store.backend(),
    });
    await c.load();
    await c.patchState(JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}'));
    await c.incState({ constructor: 2 });
    expect(Object.keys(store.get()!.value).sort()).toEqual(["__proto__", "constructor"]);
    expect(store.get()!.value.constructor).toBe(3);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("compare-and-swap", () => {
  it("two concurrent increments from two request contexts both land", async () => {
    const store = sharedValue({ n: 0, tags: [] });
    const a = await cell(store);
    const b = await cell(store);
    await Promise.all([a.incState({ n: 1 }), b.incState({ n: 1 })]);
    expect(store.get()?.value.n).toBe(2);
  });

  it("fifty concurrent increments from fifty contexts all land", async () => {
    const store = sharedValue({ n: 0, tags: [] });
    const cells = await Promise.all(Array.from({ length: 50 }, () => cell(store)));
    await Promise.all(cells.map((c) => c.incState({ n: 1 })));
    expect(store.get()?.value.n).toBe(50);
  });

  it("three hundred writers on one key, each racing three increments through a store with latency, all land", async () => {
    // As on a database shared by several hosts: every write takes a round trip, so a lost race costs one.
    const store = sharedValue({ n: 0, tags: [] });
    const latent = (): CellBackend => {
      const inner = store.backend();
      const trip = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
      return {
        read: async () => {
          await trip();
          return inner.read();
        },
        write: async (value, expected) => {
          await trip();
          return inner.write(value, expected);
        },
      };
    };
    const cells = await Promise.all(
      Array.from({ length: 300 }, () =>
        new StateCell({ name: "counter", schema: counterSchema, backend: latent() }).load(),
      ),
    );
    await Promise.all(
      cells.map(async (c) => {
        for (let i = 0; i < 3; i++) await c.incState({ n: 1 });
      }),
    );
    expect(store.get()?.value.n).toBe(900);
  }, 60_000);

  it("gives up with write-conflict only after losing maxRetries races and retrying for retryWindowMs", async () => {
    const losing: CellBackend = {
      read: async () => ({ value: { n: 0, tags: [] }, version: 1 }),
      write: async () => ({ ok: false, current: { value: { n: 0, tags: [] }, version: 1 } }),
    };
    const started = Date.now();
    const c = await new StateCell({
      name: "counter",
      schema: counterSchema,
      backend: losing,
      maxRetries: 3,
      retryWindowMs: 150,
    }).load();
    const error = await refusal(c.incState({ n: 1 }));
    expect(error.code).toBe("write-conflict");
    expect(error.retryable).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });

  it("the state getter returns a copy", async () => {
    const store = sharedValue({ n: 1, tags: ["a"] });
    const c = await cell(store);
    (c.state.tags as string[]).push("mutated");
    expect(c.state.tags).toEqual(["a"]);
  });
});

describe("getOrPatchState", () => {
  it("concurrent misses of one key share one compute", async () => {
    const store = sharedValue({ n: 0, tags: [] });
    const c = await cell(store);
    let computes = 0;
    const compute = async () => {
      computes++;
      await new Promise((r) => setTimeout(r, 5));
      return "computed";
    };
    const results = await Promise.all([
      c.getOrPatchState("label", compute),
      c.getOrPatchState("label", compute),
    ]);
    expect(results).toEqual(["computed", "computed"]);
    expect(computes).toBe(1);
    expect(store.get()?.value.label).toBe("computed");
  });

  it("a stored null counts as present", async () => {
    const store = sharedValue({ n: null, tags: [] });
    const c = await cell(store);
    let computes = 0;
    const value = await c.getOrPatchState("n", () => {
      computes++;
      return 5;
    });
    expect(value).toBeNull();
    expect(computes).toBe(0);
  });

  it("a compute returning undefined stores nothing", async () => {
    const store = sharedValue({ n: 0, tags: [] });
    const c = await cell(store);
    expect(await c.getOrPatchState("label", () => undefined)).toBeUndefined();
    expect(store.writes()).toBe(0);
  });
});
