import type { FlowStores } from "@flowrt/core";

/**
 * Opens another set of stores over the backing storage of the case's stores, as a second process sharing it
 * would; the stores themselves when the suite was given no way to open one.
 */
export type OpenPeer = () => Promise<FlowStores>;

/** One rule of the store contract, checked against a fresh set of stores. */
export interface ConformanceCase<Name extends string = string> {
  /** Stable id, used as the test title prefix and as the key of `skip`. */
  readonly name: Name;
  /** What the case proves, appended to the test title. */
  readonly title: string;
  /** Throws (through vitest's `expect`) when the stores break the rule. `peer` defaults to the stores. */
  readonly run: (stores: FlowStores, peer?: OpenPeer) => Promise<void>;
}

/** Keeps the name literal so that the union of case names can be derived from the case lists. */
export function defineCase<const Name extends string>(
  name: Name,
  title: string,
  run: (stores: FlowStores, peer?: OpenPeer) => Promise<void>,
): ConformanceCase<Name> {
  return { name, title, run };
}
