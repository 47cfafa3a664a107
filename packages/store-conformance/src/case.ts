import type { FlowStores } from "@flowrt/core";

/** One rule of the store contract, checked against a fresh set of stores. */
export interface ConformanceCase<Name extends string = string> {
  /** Stable id, used as the test title prefix and as the key of `skip`. */
  readonly name: Name;
  /** What the case proves, appended to the test title. */
  readonly title: string;
  /** Throws (through vitest's `expect`) when the stores break the rule. */
  readonly run: (stores: FlowStores) => Promise<void>;
}

/** Keeps the name literal so that the union of case names can be derived from the case lists. */
export function defineCase<const Name extends string>(
  name: Name,
  title: string,
  run: (stores: FlowStores) => Promise<void>,
): ConformanceCase<Name> {
  return { name, title, run };
}
