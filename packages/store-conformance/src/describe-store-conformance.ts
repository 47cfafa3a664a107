import type { FlowStores } from "@flowrt/core";
import { describe, it } from "vitest";
import { ALL_CASES } from "./cases/index.js";

/** The name of one conformance case, e.g. `"resources/tombstone"`. */
export type ConformanceCaseName = (typeof ALL_CASES)[number]["name"];

/** Every case name, in the order the suite runs them. */
export const CONFORMANCE_CASES: readonly ConformanceCaseName[] = ALL_CASES.map((c) => c.name);

export interface StoreConformanceOptions {
  /** Shown in the suite title, e.g. `"memory"`. */
  name: string;
  /** Makes the stores one case runs against. Called once per case. */
  create: () => FlowStores | Promise<FlowStores>;
  /**
   * Tears down what `create` made, after each case (pass or fail).
   * @default (stores) => stores.close()
   */
  destroy?: (stores: FlowStores) => void | Promise<void>;
  /**
   * Opens a second set of stores over the same backing storage as `stores` (what another process sharing it
   * opens: a second pool on the same database and schema), for the cases that check a rule across
   * instances; each is torn down with `destroy` after its case. Give it for stores whose `crossProcess` is
   * true. Without it those cases run their concurrent calls against the one instance.
   * @example
   * peer: async () => createPostgresStores({ connectionString: url, schema })
   */
  peer?: (stores: FlowStores) => FlowStores | Promise<FlowStores>;
  /**
   * Cases this store cannot pass, by name, each with the reason. A skipped case still appears in the
   * report (as skipped, titled with its name and the reason). Unknown names are refused.
   * @default {}
   */
  skip?: Partial<Record<ConformanceCaseName, string>>;
  /**
   * Per-case timeout in milliseconds.
   * @default 20_000
   */
  timeoutMs?: number;
}

/**
 * Registers the store conformance suite with vitest: one `describe` with one test per case. Call it
 * at the top level of a test file.
 *
 * @example
 * describeStoreConformance({ name: "memory", create: () => createMemoryStores() });
 */
export function describeStoreConformance(options: StoreConformanceOptions): void {
  const skip: Record<string, string | undefined> = options.skip ?? {};
  const known = new Set<string>(CONFORMANCE_CASES);
  for (const [name, reason] of Object.entries(skip)) {
    if (!known.has(name)) {
      throw new TypeError(
        `describeStoreConformance: unknown case "${name}" in skip (see CONFORMANCE_CASES for the names).`,
      );
    }
    if (typeof reason !== "string" || reason.trim() === "") {
      throw new TypeError(`describeStoreConformance: skipping "${name}" needs a reason.`);
    }
  }
  const destroy = options.destroy ?? ((stores: FlowStores) => stores.close());
  const timeout = options.timeoutMs ?? 20_000;

  describe(`store conformance: ${options.name}`, () => {
    for (const conformanceCase of ALL_CASES) {
      const title = `${conformanceCase.name}: ${conformanceCase.title}`;
      const reason = skip[conformanceCase.name];
      if (reason !== undefined) {
        it.skip(`${conformanceCase.name}: skipped: ${reason}`, () => {});
        continue;
      }
      it(
        title,
        async () => {
          const stores = await options.create();
          const peers: FlowStores[] = [];
          const makePeer = options.peer;
          const peer =
            makePeer === undefined
              ? undefined
              : async () => {
                  const opened = await makePeer(stores);
                  peers.push(opened);
                  return opened;
                };
          try {
            await conformanceCase.run(stores, peer);
          } finally {
            for (const opened of peers) await destroy(opened);
            await destroy(stores);
          }
        },
        timeout,
      );
    }
  });
}
