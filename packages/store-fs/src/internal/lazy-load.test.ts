import { describe, expect, it } from "vitest";
import { LazyLoad } from "./lazy-load.js";

describe("LazyLoad", () => {
  it("builds once, and builds again only after a failure", async () => {
    let calls = 0;
    const lazy = new LazyLoad(async () => {
      calls++;
      if (calls === 1) throw new Error("disk hiccup");
      return calls;
    });
    expect(lazy.started()).toBeNull();
    await expect(lazy.get()).rejects.toThrow("disk hiccup");
    expect(lazy.started()).toBeNull();
    expect(await Promise.all([lazy.get(), lazy.get()])).toEqual([2, 2]);
    expect(await lazy.started()).toBe(2);
    expect(calls).toBe(2);
  });
});
